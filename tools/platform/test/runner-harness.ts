import {
  createTestStores,
  ECHO_WORKER_TEMPLATE,
  getFreePort,
  isPortOpen,
  isProcessAlive,
  pollUntil,
  type ProcessGroup,
  signalProcessGroup,
  spawnProcessGroup,
  stopProcessGroup,
  TEST_REDIS_URL,
  type TestDatabase,
  type TestStores,
} from '@runplane/testing';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { PidRecord } from '../state';

// The runner is started the way the README says, so it gets the caller's environment (PATH, HOME).
const INHERITED_ENV = { ...process.env };
const REPO_ROOT = resolve(__dirname, '..', '..', '..');

/** One test file's `npm start`: its own database, Redis key prefix and state directory. */
export class RunnerHarness {
  database!: TestDatabase;
  stateDir!: string;
  private stores!: TestStores;
  private readonly groups: ProcessGroup[] = [];

  constructor(private readonly name: string) {}

  async setUp(): Promise<void> {
    this.stores = await createTestStores(this.name);
    ({ database: this.database, stateDir: this.stateDir } = this.stores);
  }

  /** Stops every runner group started (and what a killed runner left in it), then drops the test's state. */
  async tearDown(): Promise<void> {
    for (const group of this.groups) await stopProcessGroup(group);
    // Workloads run in their own process groups: stop any a failed test left running.
    for (const record of this.workloads()) if (isProcessAlive(record.pid)) signalProcessGroup(record.pid, 'SIGKILL');
    await this.stores.close();
  }

  /** `npm start` on the given ports (gateway, job API, scheduler, webhooks, billing[, S3]); resolves once ready. */
  async start(ports: number[], env: Record<string, string> = {}): Promise<ProcessGroup> {
    const [gateway, jobApi, scheduler, webhook, billing, s3 = String(await getFreePort())] = ports.map(String);
    const group = spawnProcessGroup('npm', ['start'], {
      cwd: REPO_ROOT,
      env: {
        ...INHERITED_ENV,
        DATABASE_URL: this.database.url,
        REDIS_URL: TEST_REDIS_URL,
        REDIS_PREFIX: this.stores.prefix,
        RUNPLANE_STATE_DIR: this.stateDir,
        RUNPLANE_ENCRYPTION_KEY: undefined,
        RUNPLANE_CATALOG_FILE: undefined,
        RUNPLANE_GATEWAY_PORT: gateway,
        RUNPLANE_JOB_API_PORT: jobApi,
        RUNPLANE_SCHEDULER_PORT: scheduler,
        RUNPLANE_WEBHOOK_PORT: webhook,
        RUNPLANE_BILLING_PORT: billing,
        RUNPLANE_S3_PORT: s3,
        LOG_LEVEL: 'warn',
        ...env,
      },
    });
    this.groups.push(group);
    await pollUntil(
      () => {
        if (group.child.exitCode !== null) throw new Error(`npm start exited early:\n${group.output()}`);
        // The banner's last line: the lines before it (URLs, key) may arrive in separate chunks.
        return group.output().includes('Press Ctrl-C to stop.');
      },
      { timeoutMs: 240_000, intervalMs: 250, description: 'npm start to report ready' },
    );
    return group;
  }

  adminKey(): string {
    return readFileSync(join(this.stateDir, 'admin-key'), 'utf8').trim();
  }

  /** The runner's pids.json, and every pid in it. */
  readPids(): { record: PidRecord; all: number[] } {
    const record = JSON.parse(readFileSync(join(this.stateDir, 'pids.json'), 'utf8')) as PidRecord;
    return { record, all: [record.runner, ...Object.values(record.apps), ...Object.values(record.services)] };
  }

  /** The local driver's pid files (see README, local driver): one per Pod or worker process it started. */
  workloads(): Array<{ podId: string; pid: number; phase: string; reason: string | null }> {
    const dir = join(this.stateDir, 'scheduler', 'workloads');
    let names: string[];
    try {
      names = readdirSync(dir).filter((name) => name.endsWith('.json'));
    } catch {
      return [];
    }
    return names.map(
      (name) =>
        JSON.parse(readFileSync(join(dir, name), 'utf8')) as {
          podId: string;
          pid: number;
          phase: string;
          reason: string | null;
        },
    );
  }

  /** Waits until a local worker process of the platform is running, and returns its record. */
  async runningWorker(except: number[] = []): Promise<{ podId: string; pid: number }> {
    return pollUntil(
      () =>
        this.workloads().find(
          (record) => record.phase === 'RUNNING' && !except.includes(record.pid) && isProcessAlive(record.pid),
        ),
      { timeoutMs: 120_000, intervalMs: 250, description: 'a local worker process to be running' },
    );
  }

  /** Waits until every pid is gone and no port answers. */
  async expectNothingLeft(pids: number[], ports: number[]): Promise<void> {
    await pollUntil(() => pids.every((pid) => !isProcessAlive(pid)), {
      timeoutMs: 30_000,
      description: 'every started process to be gone',
    });
    const open = await Promise.all(ports.map((port) => isPortOpen(port)));
    expect(open).toEqual(ports.map(() => false));
  }
}

/** POST to the management API with the admin key; returns the created object. */
export async function postV1(
  gatewayPort: number,
  secret: string,
  path: string,
  body: unknown,
): Promise<{ id: string }> {
  const response = await fetch(`http://127.0.0.1:${gatewayPort}/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`POST /v1${path} answered ${response.status}: ${text}`);
  return JSON.parse(text) as { id: string };
}

/** How {@link createEchoEndpoint} shapes the endpoint beyond its minimum workers. */
export interface EchoEndpointOptions {
  /** Seconds a worker may idle before it is scaled down (default 5). */
  idleTimeout?: number;
  /** The worker's arguments to `node` (default: the echo worker's source through the SWC loader). */
  startCmd?: string[];
}

/** An echo-worker endpoint with `workersMin` workers kept running. */
export async function createEchoEndpoint(
  gatewayPort: number,
  secret: string,
  workersMin: number,
  options: EchoEndpointOptions = {},
): Promise<{ id: string }> {
  const template = await postV1(gatewayPort, secret, '/templates', {
    ...ECHO_WORKER_TEMPLATE,
    ...(options.startCmd === undefined ? {} : { dockerStartCmd: options.startCmd }),
    name: `echo-${workersMin}-${Date.now()}`,
  });
  return postV1(gatewayPort, secret, '/endpoints', {
    name: `echo-${workersMin}`,
    templateId: template.id,
    gpuTypeIds: ['NVIDIA GeForce RTX 4090'],
    gpuCount: 1,
    workersMin,
    workersMax: Math.max(1, workersMin),
    idleTimeout: options.idleTimeout ?? 5,
    scalerType: 'QUEUE_DELAY',
    scalerValue: 1,
  });
}
