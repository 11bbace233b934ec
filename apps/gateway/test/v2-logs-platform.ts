import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createAccountsServices } from '@runplane/accounts';
import { seedCatalog } from '@runplane/catalog';
import { createPrismaClient } from '@runplane/db';
import { buildService } from '@runplane/http';
import {
  createTestDatabase,
  getFreePorts,
  isPortOpen,
  pollUntil,
  type ProcessGroup,
  spawnProcessGroup,
  stopProcessGroup,
  testRedisPrefix,
} from '@runplane/testing';
import { gatewayEnvSchema } from '../src/config';
import { GatewayModule } from '../src/gateway.module';
import { GATEWAY_SERVICE } from '../src/gateway-service';

const REPO_ROOT = resolve(__dirname, '..', '..', '..');

/** A gateway in this process and a scheduler process (local driver) on one database and Redis prefix. */
export interface LogPlatform {
  gatewayUrl: string;
  db: ReturnType<typeof createPrismaClient>;
  stateDir: string;
  scheduler: ProcessGroup;
  /** An account with an API key. */
  tenant(name: string): Promise<{ accountId: string; secret: string }>;
  /** Shuts the gateway down as a rolling upgrade does (close() then skips it). */
  closeGateway(): Promise<void>;
  /** Active inotify watches of the scheduler process (one per open local log stream). */
  schedulerWatches(): number;
  close(): Promise<void>;
}

/** inotify watches listed in a process's fdinfo; 0 when it has none. */
function inotifyWatches(pid: number): number {
  let count = 0;
  for (const fd of readdirSync(`/proc/${pid}/fdinfo`)) {
    const info = readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8');
    count += info.split('\n').filter((line) => line.startsWith('inotify wd:')).length;
  }
  return count;
}

type GatewayApp = Awaited<ReturnType<typeof buildService>>;

async function startGatewayApp(databaseUrl: string, prefix: string, port: number): Promise<GatewayApp> {
  const config = gatewayEnvSchema.parse({
    DATABASE_URL: databaseUrl,
    REDIS_PREFIX: prefix,
    RUNPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'silent',
  });
  const app = await buildService({
    ...GATEWAY_SERVICE,
    config,
    module: (infrastructure) => GatewayModule.forRoot(config, infrastructure),
  });
  await app.listen(port, '127.0.0.1');
  return app;
}

/** Stops every workload process the scheduler left (it keeps them running when it stops, as in production). */
function stopLeftWorkloads(stateDir: string): void {
  const dir = join(stateDir, 'workloads');
  if (!existsSync(dir)) return;
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.json'))) {
    const record = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { pid: number };
    try {
      process.kill(-record.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** The scheduler from its sources, as `npm start` runs it; resolves once it listens. */
async function startScheduler(options: {
  DATABASE_URL: string;
  REDIS_PREFIX: string;
  stateDir: string;
  port: number;
  env: Record<string, string>;
}): Promise<ProcessGroup> {
  const scheduler = spawnProcessGroup(
    process.execPath,
    ['-r', '@swc-node/register', join(REPO_ROOT, 'apps', 'scheduler', 'src', 'main.ts')],
    {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATABASE_URL: options.DATABASE_URL,
        REDIS_PREFIX: options.REDIS_PREFIX,
        LOG_LEVEL: 'warn',
        HOST: '127.0.0.1',
        PORT: String(options.port),
        SCHEDULER_STATE_DIR: options.stateDir,
        SCHEDULER_WORK_DIR: REPO_ROOT,
        SCHEDULER_TICK_MS: '250',
        SCHEDULER_STOP_GRACE_MS: '1000',
        ...options.env,
      },
    },
  );
  await pollUntil(
    async () => {
      if (scheduler.child.exitCode !== null) throw new Error(`scheduler exited:\n${scheduler.output()}`);
      return isPortOpen(options.port);
    },
    { timeoutMs: 120_000, intervalMs: 200, description: 'the scheduler listening' },
  );
  return scheduler;
}

/** Closes the app the first time it is called. */
function once(app: GatewayApp): () => Promise<void> {
  let closing: Promise<void> | null = null;
  return () => (closing ??= app.close());
}

/**
 * Starts the platform pieces log streams need: the real gateway (v1 and v2) and the real scheduler, on the local
 * driver unless `schedulerEnv` says otherwise (SCHEDULER_DRIVER=kubernetes, KUBECONFIG...).
 */
export async function startLogPlatform(label: string, schedulerEnv: Record<string, string> = {}): Promise<LogPlatform> {
  const database = await createTestDatabase(label);
  const prefix = testRedisPrefix(label);
  const db = createPrismaClient(database.url);
  await seedCatalog(db);
  const stateDir = mkdtempSync(join(tmpdir(), `runplane-${label}-`));
  const [gatewayPort = 0, schedulerPort = 0] = await getFreePorts(2);
  const scheduler = await startScheduler({
    DATABASE_URL: database.url,
    REDIS_PREFIX: prefix,
    stateDir,
    port: schedulerPort,
    env: schedulerEnv,
  });
  const closeGateway = once(await startGatewayApp(database.url, prefix, gatewayPort));
  const { accounts, apiKeys } = createAccountsServices(db);
  return {
    gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
    db,
    stateDir,
    scheduler,
    async tenant(name) {
      const account = await accounts.create({ name });
      const { secret } = await apiKeys.create(account.id, { name: `${name} key`, scope: 'ALL' });
      return { accountId: account.id, secret };
    },
    schedulerWatches: () => inotifyWatches(scheduler.pid),
    closeGateway,
    async close() {
      await stopProcessGroup(scheduler, 5_000);
      stopLeftWorkloads(stateDir);
      await closeGateway();
      await db.$disconnect();
      await database.drop();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
