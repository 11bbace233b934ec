import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DbClient } from './client';
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
 * has never been migrated. A rolled-back attempt does not count as applied.
 */
export async function missingMigrations(db: DbClient, shipped: string[] = shippedMigrations()): Promise<string[]> {
  const [table] = await db.$queryRaw<Array<{ exists: boolean }>>`SELECT to_regclass('_prisma_migrations') IS NOT NULL AS exists`;
  if (table?.exists !== true) return shipped;
  const rows = await db.$queryRaw<Array<{ migration_name: string }>>`
    SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
  const applied = new Set(rows.map((row) => row.migration_name));
  return shipped.filter((name) => !applied.has(name));
}
