import type { ApiKeyDto } from '@runplane/contracts';
import runpodSdk from 'runpod-sdk';
import { createRedis } from '@runplane/queue';
import {
  cleanupRedisPrefix,
  createTestDatabase,
  ECHO_WORKER_TEMPLATE,
  getFreePorts,
  isPortOpen,
  isProcessAlive,
  pollUntil,
  type ProcessGroup,
  signalProcessGroup,
  spawnProcessGroup,
  stopProcessGroup,
  type TestDatabase,
  testRedisPrefix,
} from '@runplane/testing';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { PidRecord } from './state';

// The runner is started the way the README says, so it gets the caller's environment (PATH, HOME).
const INHERITED_ENV = { ...process.env };
const REPO_ROOT = resolve(__dirname, '..', '..');
const REDIS_URL = 'redis://127.0.0.1:6379';

describe('npm start (smoke)', () => {
  let database: TestDatabase;
  let stateDir: string;
  let redisPrefix: string;
  let runner: ProcessGroup | undefined;

  beforeAll(async () => {
    database = await createTestDatabase('start-smoke');
    stateDir = mkdtempSync(join(tmpdir(), 'runplane-smoke-'));
    redisPrefix = testRedisPrefix('start-smoke');
  });

  afterAll(async () => {
    if (runner !== undefined) await stopProcessGroup(runner);
    await database.drop();
    rmSync(stateDir, { recursive: true, force: true });
    const redis = createRedis(REDIS_URL);
    await cleanupRedisPrefix(redis, redisPrefix);
    await redis.quit();
  });

  async function startRunner(ports: number[]): Promise<ProcessGroup> {
    const [gateway, jobApi, scheduler, webhook, billing] = ports.map(String);
    const group = spawnProcessGroup('npm', ['start'], {
      cwd: REPO_ROOT,
      env: {
        ...INHERITED_ENV,
        DATABASE_URL: database.url,
        REDIS_URL,
        REDIS_PREFIX: redisPrefix,
        RUNPLANE_STATE_DIR: stateDir,
        RUNPLANE_ENCRYPTION_KEY: undefined,
        RUNPLANE_CATALOG_FILE: undefined,
        RUNPLANE_GATEWAY_PORT: gateway,
        RUNPLANE_JOB_API_PORT: jobApi,
        RUNPLANE_SCHEDULER_PORT: scheduler,
        RUNPLANE_WEBHOOK_PORT: webhook,
        RUNPLANE_BILLING_PORT: billing,
        LOG_LEVEL: 'warn',
      },
    });
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

  function readPids(): { record: PidRecord; all: number[] } {
    const record = JSON.parse(readFileSync(join(stateDir, 'pids.json'), 'utf8')) as PidRecord;
    return { record, all: [record.runner, ...Object.values(record.apps), ...Object.values(record.services)] };
  }

  async function expectNothingLeft(pids: number[], ports: number[]): Promise<void> {
    await pollUntil(() => pids.every((pid) => !isProcessAlive(pid)), {
      timeoutMs: 15_000,
      description: 'every started process to be gone',
    });
    const open = await Promise.all(ports.map((port) => isPortOpen(port)));
    expect(open).toEqual(ports.map(() => false));
  }

  /**
   * The local driver end to end: a template whose start command runs the example worker, an endpoint with
   * workersMin 0, jobs submitted with RunPod's npm client. The scheduler starts a worker process for the queued
   * jobs, and ends it once it has been idle for the endpoint's idleTimeout.
   */
  async function runJobsOnLocalWorkers(gatewayPort: number, jobApiPort: number, secret: string): Promise<void> {
    const v1 = async (path: string, body: unknown): Promise<{ id: string }> => {
      const response = await fetch(`http://127.0.0.1:${gatewayPort}/v1${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`POST /v1${path} answered ${response.status}: ${text}`);
      return JSON.parse(text) as { id: string };
    };
    const template = await v1('/templates', ECHO_WORKER_TEMPLATE);
    const endpoint = await v1('/endpoints', {
      name: 'echo',
      templateId: template.id,
      gpuTypeIds: ['NVIDIA GeForce RTX 4090'],
      gpuCount: 1,
      workersMin: 0,
      workersMax: 1,
      idleTimeout: 2,
      scalerType: 'QUEUE_DELAY',
      scalerValue: 1,
    });
    const sdk = runpodSdk(secret, { baseUrl: `http://127.0.0.1:${jobApiPort}/v2` }).endpoint(endpoint.id);
    if (!sdk) throw new Error('runpod-sdk returned no endpoint');

    const accepted = await Promise.all(['one', 'two', 'three'].map((text) => sdk.run({ input: { text } })));
    const results = await Promise.all(
      accepted.map(({ id }) =>
        pollUntil(
          async () => {
            const status = (await sdk.status(id)) as unknown as { status: string; output?: unknown; workerId?: string };
            return status.status === 'IN_QUEUE' || status.status === 'IN_PROGRESS' ? undefined : status;
          },
          { timeoutMs: 120_000, intervalMs: 250, description: `job ${id} to finish on a local worker` },
        ),
      ),
    );
    expect(results.map((result) => result.status)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED']);
    expect(results.map((result) => (result.output as { echo: { text: string } }).echo.text)).toEqual(['one', 'two', 'three']);
    const workerId = results[0]?.workerId;
    expect(typeof workerId).toBe('string');
    expect(results.every((result) => result.workerId === workerId)).toBe(true);

    // Idle past idleTimeout: the scheduler ends the worker process, and /health counts no worker.
    await pollUntil(
      async () => {
        const health = (await sdk.health()) as unknown as { workers: Record<string, number> };
        return Object.values(health.workers).every((count) => count === 0) || undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, description: 'the idle worker to be scaled down' },
    );
  }

  it('starts the platform, serves the admin key, and leaves nothing behind on Ctrl-C', async () => {
    const ports = await getFreePorts(5);
    const group = await startRunner(ports);
    runner = group;
    const gatewayPort = ports[0] ?? 0;
    expect(group.output()).toContain(`http://127.0.0.1:${gatewayPort}/v1`);
    expect(group.output()).toContain(`http://127.0.0.1:${ports[1] ?? 0}/v2`);

    const secret = readFileSync(join(stateDir, 'admin-key'), 'utf8').trim();
    expect(statSync(join(stateDir, 'admin-key')).mode & 0o777).toBe(0o600);
    expect(group.output()).toContain(secret);
    const response = await fetch(`http://127.0.0.1:${gatewayPort}/v1/apikeys`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    const text = await response.text();
    expect(response.status).toBe(200);
    const keys = JSON.parse(text) as ApiKeyDto[];
    expect(Array.isArray(keys)).toBe(true);
    expect(keys.some((key) => key.scope === 'ALL' && secret.startsWith(key.prefix))).toBe(true);
    expect(text).not.toContain(secret);

    const pids = readPids();
    expect(Object.keys(pids.record.apps).sort()).toEqual(
      ['billing-aggregator', 'gateway', 'job-router', 'scheduler', 'webhook-dispatcher'],
    );
    expect(pids.all.every(isProcessAlive)).toBe(true);

    await runJobsOnLocalWorkers(gatewayPort, ports[1] ?? 0, secret);

    // Like Ctrl-C in a terminal: the whole foreground group (npm, the runner, the apps) gets SIGINT.
    signalProcessGroup(group.pid, 'SIGINT');
    const exit = await group.exited;
    // npm re-raises the signal on itself once its script has finished, so it may report SIGINT.
    expect(exit.code === 0 || exit.signal === 'SIGINT').toBe(true);
    expect(group.output()).toContain('stopping (received SIGINT)');
    expect(group.output()).toContain('stopped (exit code 0)');
    await expectNothingLeft(pids.all, ports);
  }, 300_000);

  it('reuses the kept admin key, and stops everything when an app dies', async () => {
    const keptSecret = readFileSync(join(stateDir, 'admin-key'), 'utf8').trim();
    const ports = await getFreePorts(5);
    const group = await startRunner(ports);
    runner = group;
    expect(readFileSync(join(stateDir, 'admin-key'), 'utf8').trim()).toBe(keptSecret);
    expect(group.output()).toContain(keptSecret);
    expect(group.output()).not.toContain('(new, kept in');

    const pids = readPids();
    process.kill(pids.record.apps.scheduler ?? 0, 'SIGKILL');
    const exit = await group.exited;
    expect(exit.code).not.toBe(0);
    expect(group.output()).toContain('scheduler exited unexpectedly (SIGKILL)');
    expect(group.output()).toContain('stopped (exit code 1)');
    await expectNothingLeft(pids.all, ports);
  }, 300_000);
});
