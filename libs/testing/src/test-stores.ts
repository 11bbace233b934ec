import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPrismaClient } from '@runplane/db';
import { closeRedis, createRedis, type Redis } from '@runplane/queue';
import { createTestDatabase, type TestDatabase } from './database';
import { cleanupRedisPrefix, testRedisPrefix } from './redis';

/** The Redis every test runs against (key prefixes keep test files apart). */
export const TEST_REDIS_URL = 'redis://127.0.0.1:6379';

/** Where one test file keeps its state: a database, a Redis key prefix and a folder, each its own. */
export interface TestStores {
  database: TestDatabase;
  /** A client on {@link database}. */
  db: ReturnType<typeof createPrismaClient>;
  /** The file's Redis key prefix (its services get it as REDIS_PREFIX). */
  prefix: string;
  /** A connection to {@link TEST_REDIS_URL} without a key prefix. */
  redis: Redis;
  /** A fresh folder under the system's temporary folder (a scheduler's SCHEDULER_STATE_DIR). */
  stateDir: string;
  /**
   * Deletes them all, whatever is left of them: the prefix's keys (then the Redis connection), the database (after
   * its client) and the folder. Stop the processes that use them first.
   */
  close(): Promise<void>;
}

/** Creates the stores of one test file, named after `label`. */
export async function createTestStores(label: string): Promise<TestStores> {
  const database = await createTestDatabase(label);
  const prefix = testRedisPrefix(label);
  const stateDir = mkdtempSync(join(tmpdir(), `runplane-${label}-`));
  const db = createPrismaClient(database.url);
  const redis = createRedis(TEST_REDIS_URL);
  return {
    database,
    db,
    prefix,
    redis,
    stateDir,
    async close() {
      await cleanupRedisPrefix(redis, prefix);
      await closeRedis(redis);
      await db.$disconnect();
      await database.drop();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
