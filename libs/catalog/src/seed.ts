import { type DbClient, withTransaction } from '@runplane/db';
import type { CatalogOverrides } from './overrides';
import { buildCatalog } from './overrides';
import { seedPublicTemplates } from './public-templates';

/** Rows written by {@link seedCatalog}, per table. */
export interface SeedResult {
  created: number;
  updated: number;
  unchanged: number;
}

type Scalar = string | number | boolean | null;

// Decimal columns come back as Decimal objects; compare them as numbers.
function normalise(value: unknown): Scalar {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return value;
  return Number(String(value));
}

function differs(row: Record<string, unknown>, entry: object): boolean {
  return Object.entries(entry).some(([key, value]) => normalise(row[key]) !== value);
}

interface Table<E extends { id: string }> {
  findAll(): Promise<Record<string, unknown>[]>;
  createMany(entries: E[]): Promise<unknown>;
  update(entry: E): Promise<unknown>;
}

// Writes only what changed, so re-seeding an up-to-date catalog touches no row (updatedAt stays put).
async function sync<E extends { id: string }>(
  table: Table<E>,
  entries: readonly E[],
  result: SeedResult,
): Promise<void> {
  const rows = new Map((await table.findAll()).map((row) => [row['id'] as string, row]));
  const missing = entries.filter((entry) => !rows.has(entry.id));
  if (missing.length > 0) await table.createMany(missing);
  result.created += missing.length;
  for (const entry of entries) {
    const row = rows.get(entry.id);
    if (row === undefined) continue;
    if (differs(row, entry)) {
      await table.update(entry);
      result.updated += 1;
    } else {
      result.unchanged += 1;
    }
  }
}

/**
 * Writes the built-in catalog (GPU types, CPU flavors, data centers), with operator overrides
 * applied, into the database. Idempotent: running it again with the same input changes nothing.
 * Ids no longer in the catalog are left alone (pods and bills may still refer to them).
 */
export async function seedCatalog(db: DbClient, overrides?: CatalogOverrides): Promise<SeedResult> {
  const catalog = buildCatalog(overrides);
  const result: SeedResult = { created: 0, updated: 0, unchanged: 0 };
  await withTransaction(
    db,
    async (tx) => {
      await sync(
        {
          findAll: () => tx.gpuType.findMany(),
          createMany: (data) => tx.gpuType.createMany({ data, skipDuplicates: true }),
          update: ({ id, ...data }) => tx.gpuType.update({ where: { id }, data }),
        },
        catalog.gpuTypes,
        result,
      );
      await sync(
        {
          findAll: () => tx.cpuFlavor.findMany(),
          createMany: (data) => tx.cpuFlavor.createMany({ data, skipDuplicates: true }),
          update: ({ id, ...data }) => tx.cpuFlavor.update({ where: { id }, data }),
        },
        catalog.cpuFlavors,
        result,
      );
      await sync(
        {
          findAll: () => tx.dataCenter.findMany(),
          createMany: (data) => tx.dataCenter.createMany({ data, skipDuplicates: true }),
          update: ({ id, ...data }) => tx.dataCenter.update({ where: { id }, data }),
        },
        catalog.dataCenters,
        result,
      );
      await seedPublicTemplates(tx, catalog.templates);
    },
    { timeoutMs: 30_000 },
  );
  return result;
}
