import { dropStaleTestDatabases, prepareTemplateDatabase } from './database';

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT']);

/**
 * Jest global setup: (re)builds the migrated template database test databases are cloned from.
 * With no Postgres server at all, tests that need no database still run; the others then fail
 * in createTestDatabase with the connection error.
 */
export default async function globalSetup(): Promise<void> {
  try {
    await prepareTemplateDatabase();
    await dropStaleTestDatabases();
  } catch (err) {
    if (!UNREACHABLE.has((err as { code?: string }).code ?? '')) throw err;
    process.stderr.write(`test databases unavailable: ${(err as Error).message}\n`);
  }
}
