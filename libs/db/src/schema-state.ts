import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { repositoryRoot } from './migrations';

/** The migrations this build ships: the folder names under prisma/migrations (beside dist/ in the image), in order. */
export function shippedMigrations(dir = join(repositoryRoot(), 'prisma', 'migrations')): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/**
 * The shipped migrations the database has not finished applying, oldest first; all of them when the database
 * has never been migrated. A rolled-back attempt does not count as applied. One short connection of its own (not
 * a Prisma client), so a service checking before it starts holds nothing afterwards.
 */
export async function missingMigrations(
  databaseUrl: string,
  shipped: string[] = shippedMigrations(),
): Promise<string[]> {
  const client = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    const table = await client.query<{ exists: boolean }>(
      `SELECT to_regclass('_prisma_migrations') IS NOT NULL AS exists`,
    );
    if (table.rows[0]?.exists !== true) return shipped;
    const rows = await client.query<{ migration_name: string }>(
      'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const applied = new Set(rows.rows.map((row) => row.migration_name));
    return shipped.filter((name) => !applied.has(name));
  } finally {
    await client.end().catch(() => undefined);
  }
}
