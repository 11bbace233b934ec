import type { createPrismaClient } from '@runplane/db';

type Db = ReturnType<typeof createPrismaClient>;

/**
 * Columns a request may change without doing anything: authentication stamps a key's lastUsedAt (and so its
 * updatedAt) now and then, whatever the request does.
 */
const BOOKKEEPING: Record<string, readonly string[]> = { api_keys: ['lastUsedAt', 'updatedAt'] };

function stable(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item));
}

/**
 * Every row of every table of the test database, as text, but the bookkeeping columns above. The gateway keeps its
 * state in PostgreSQL (what it writes to Redis goes with a row it deletes), so two equal snapshots mean a request
 * changed nothing.
 */
export async function dbState(db: Db): Promise<Record<string, string[]>> {
  const tables = await db.$queryRawUnsafe<Array<{ name: string }>>(
    `SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> '_prisma_migrations'`,
  );
  const state: Record<string, string[]> = {};
  for (const { name } of tables.sort((a, b) => a.name.localeCompare(b.name))) {
    const rows = await db.$queryRawUnsafe<Array<Record<string, unknown>>>(`SELECT * FROM "${name}"`);
    const skipped = BOOKKEEPING[name] ?? [];
    state[name] = rows
      .map((row) => stable(Object.fromEntries(Object.entries(row).filter(([column]) => !skipped.includes(column)))))
      .sort();
  }
  return state;
}
