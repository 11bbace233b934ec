// The endpoints curve's world: one database and Redis prefix of its own, one account with an API key and a template,
// and the endpoints, worker rows and queued jobs each size seeds (rows inserted in bulk: the seeding is not measured).
import { createAccountsServices } from '@runplane/accounts';
import { setTimeout } from 'node:timers/promises';
import { createPrismaClient, type DbClient, newId } from '@runplane/db';
import { SNAPSHOT_MARGIN_MS } from '@runplane/endpoints';
import { RedisJobEngine, resolveJobPolicy } from '@runplane/jobs';
import { createRedis, normalizePrefix, type Redis } from '@runplane/queue';
import { cleanupRedisPrefix } from '@runplane/testing';
import { type BenchDatabase, createBenchDatabase } from '../bench-database';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const BATCH = 1000;
/** RunPod's default job policy, as a /run without `policy` gets it. */
const POLICY = resolveJobPolicy(undefined);

/** What one size of the curve holds: `endpoints` endpoints with `workersPerEndpoint` workers each (at their max). */
export interface Shape {
  endpoints: number;
  workersPerEndpoint: number;
}

export interface World {
  databaseUrl: string;
  db: DbClient;
  /** The deployment's key prefix (with its trailing colon). */
  prefix: string;
  accountId: string;
  secret: string;
  /**
   * Replaces every endpoint and worker row with `shape`'s; returns the endpoint ids. Resolves once the rows are older
   * than the scheduler's snapshot margin: a fleet just written is re-read on each pass until then (see
   * EndpointSnapshot), where the curves measure a fleet whose configuration is not changing.
   */
  seed(shape: Shape): Promise<string[]>;
  /** Queues `jobs` jobs on each of `endpointIds`. */
  queue(endpointIds: string[], jobs: number): Promise<void>;
  /** Drops the queued jobs and worker states (every key of the prefix). */
  clearRedis(): Promise<void>;
  close(): Promise<void>;
}

async function inBatches<T>(items: T[], write: (batch: T[]) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < items.length; start += BATCH) await write(items.slice(start, start + BATCH));
}

async function seedRows(db: DbClient, ids: { accountId: string; templateId: string }, shape: Shape): Promise<string[]> {
  await db.pod.deleteMany({});
  await db.endpoint.deleteMany({});
  const scaling = { workersMin: shape.workersPerEndpoint, workersMax: shape.workersPerEndpoint, idleTimeout: 3600 };
  const endpoints = Array.from({ length: shape.endpoints }, (_, index) => ({
    id: newId(),
    accountId: ids.accountId,
    name: `curve-${index}`,
    templateId: ids.templateId,
    ...scaling,
  }));
  await inBatches(endpoints, (batch) => db.endpoint.createMany({ data: batch }));
  const workers = endpoints.flatMap((endpoint) =>
    Array.from({ length: shape.workersPerEndpoint }, () => ({
      id: newId(),
      accountId: ids.accountId,
      endpointId: endpoint.id,
      templateId: ids.templateId,
      image: 'runplane/echo:1',
      observedPhase: 'RUNNING' as const,
      lastStartedAt: new Date(),
    })),
  );
  await inBatches(workers, (batch) => db.pod.createMany({ data: batch }));
  await setTimeout(SNAPSHOT_MARGIN_MS + 500);
  return endpoints.map((endpoint) => endpoint.id);
}

async function seedAccount(db: DbClient) {
  const services = createAccountsServices(db);
  const account = await services.accounts.create({ name: 'bench' });
  const { secret } = await services.apiKeys.create(account.id, { name: 'bench', scope: 'ALL' });
  const template = await db.template.create({
    data: { id: newId(), accountId: account.id, name: 'bench', imageName: 'runplane/echo:1', isServerless: true },
  });
  return { account, secret, ids: { accountId: account.id, templateId: template.id } };
}

/** Creates the database, the account, its key and template. */
export async function createWorld(adminDatabaseUrl: string): Promise<World> {
  const database: BenchDatabase = await createBenchDatabase(
    adminDatabaseUrl,
    `runplane_bench_endpoints_${process.pid}`,
  );
  const db = createPrismaClient(database.url);
  const prefix = normalizePrefix(`runplane-bench-endpoints-${process.pid}`);
  const redis: Redis = createRedis(REDIS_URL);
  const engine = new RedisJobEngine({ queueOrdered: createRedis(REDIS_URL), prefix, region: 'bench', maxRetries: 0 });
  const { account, secret, ids } = await seedAccount(db);
  return {
    databaseUrl: database.url,
    db,
    prefix,
    accountId: account.id,
    secret,
    seed: (shape) => seedRows(db, ids, shape),
    async queue(endpointIds, jobs) {
      const submissions = endpointIds.flatMap((endpointId) => Array.from({ length: jobs }, () => endpointId));
      await inBatches(submissions, (batch) =>
        Promise.all(
          batch.map((endpointId) =>
            engine.submit({ endpointId, accountId: account.id, input: {}, extra: {}, policy: POLICY, sync: false }),
          ),
        ),
      );
    },
    async clearRedis() {
      await cleanupRedisPrefix(redis, prefix);
    },
    async close() {
      await engine.close();
      await cleanupRedisPrefix(redis, prefix);
      redis.disconnect();
      await db.$disconnect();
      await database.drop();
    },
  };
}
