import { applyMigrations, shippedMigrations, withDatabaseAdmin } from '@runplane/db';
import { createRedis } from '@runplane/queue';
import {
  cleanupRedisPrefix,
  createTestDatabase,
  getFreePort,
  pollUntil,
  type TestDatabase,
  testRedisPrefix,
} from '@runplane/testing';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { isReady, REPO_ROOT, type RunningService, serviceCommand, serviceEnv, stopService } from '../image/launch';

const REDIS_URL = 'redis://127.0.0.1:6379';
const LATEST = shippedMigrations().at(-1) ?? '';

/** The job-router, as `npm start` runs it, on a database that has never been migrated. */
function startJobRouter(
  databaseUrl: string,
  port: number,
  redisPrefix: string,
  wait: Record<string, string>,
): RunningService {
  const env = serviceEnv('job-router', {
    mode: 'source',
    appDir: REPO_ROOT,
    imageEnv: {},
    databaseUrl,
    redisUrl: REDIS_URL,
    redisPrefix,
    encryptionKey: randomBytes(32).toString('hex'),
    ports: { 'job-router': port } as never,
    schedulerStateDir: '',
    workerDir: REPO_ROOT,
  });
  const child = spawn(process.execPath, serviceCommand('job-router', 'source'), {
    cwd: REPO_ROOT,
    env: { ...env, ...wait },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer): void => void (output += chunk.toString('utf8'));
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
    child.once('exit', (code, signal) => done({ code, signal }));
  });
  return { name: 'job-router', child, output: () => output, exited };
}

async function get(port: number, path: string): Promise<{ status: number; body: Record<string, unknown> } | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}${path}`);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  } catch {
    return undefined;
  }
}

describe('a service started before its migrations are applied', () => {
  let database: TestDatabase;
  let redisPrefix: string;
  const services: RunningService[] = [];

  beforeEach(async () => {
    database = await createTestDatabase('schema-wait');
    // Empty, as a fresh install's database is before the migrate hook Job has run.
    await withDatabaseAdmin(database.url, async (admin) => {
      await admin.drop(database.name);
      await admin.create(database.name);
    });
    redisPrefix = testRedisPrefix('schema-wait');
  });

  afterEach(async () => {
    await Promise.all(services.splice(0).map((service) => stopService(service)));
    await database.drop();
    const redis = createRedis(REDIS_URL);
    await cleanupRedisPrefix(redis, redisPrefix);
    await redis.quit();
  });

  it('waits, alive but not ready, naming the migration it lacks once, and starts serving when the migrations are applied', async () => {
    const port = await getFreePort();
    const service = startJobRouter(database.url, port, redisPrefix, { SCHEMA_WAIT_INTERVAL_MS: '100' });
    services.push(service);
    const healthz = await pollUntil(() => get(port, '/healthz'), {
      timeoutMs: 60_000,
      description: '/healthz to answer',
    });
    expect(healthz).toEqual({ status: 200, body: { status: 'ok' } });
    const readyz = await get(port, '/readyz');
    expect(readyz?.status).toBe(503);
    expect(readyz?.body).toMatchObject({ status: 'unavailable', checks: { schema: { status: 'error' } } });
    expect(JSON.stringify(readyz?.body)).toContain(LATEST);

    await applyMigrations(database.url);
    await pollUntil(async () => (await isReady(port)) || undefined, {
      timeoutMs: 60_000,
      description: '/readyz to answer 200',
    });
    expect(await get(port, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    expect(service.child.exitCode).toBeNull();
    // Rechecked every 100 ms while prisma migrate ran, but said only once.
    expect(service.output().split('waiting for migration').length - 1).toBe(1);
    expect(service.output()).toContain(LATEST);
  }, 180_000);

  it('exits 1 naming the missing migration once SCHEMA_WAIT_TIMEOUT_MS has passed', async () => {
    const port = await getFreePort();
    const service = startJobRouter(database.url, port, redisPrefix, {
      SCHEMA_WAIT_TIMEOUT_MS: '300',
      SCHEMA_WAIT_INTERVAL_MS: '100',
    });
    services.push(service);
    expect(await service.exited).toEqual({ code: 1, signal: null });
    expect(service.output()).toContain('the database schema is not ready after 300 ms');
    expect(service.output()).toContain(LATEST);
  }, 120_000);
});
