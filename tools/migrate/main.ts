/**
 * `node dist/tools/migrate/main.js`: brings a database up to date for the current build, then exits. It applies
 * pending Prisma migrations and upserts the catalog (with overrides from RUNPLANE_CATALOG_FILE when set). Both
 * steps are idempotent, so a deploy runs it before every install and upgrade (the Helm chart's hook Job) and a
 * second run changes nothing. Exit code 0 on success, 1 with the reason on stderr otherwise.
 */
import { loadCatalogOverrides, seedCatalog } from '@runplane/catalog';
import { applyMigrations, createPrismaClient } from '@runplane/db';

function requiredEnv(name: string): string {
  const value = process.env[name]?.trim();
  if (value === undefined || value === '') throw new Error(`${name} is required`);
  return value;
}

async function main(): Promise<void> {
  const databaseUrl = requiredEnv('DATABASE_URL');
  const catalogFile = process.env.RUNPLANE_CATALOG_FILE?.trim() || undefined;
  // Read the overrides first: a bad file fails the run before the database is touched.
  const overrides = catalogFile === undefined ? undefined : await loadCatalogOverrides(catalogFile);
  await applyMigrations(databaseUrl);
  process.stdout.write('migrations applied\n');
  const db = createPrismaClient(databaseUrl, { poolSize: 2 });
  try {
    await seedCatalog(db, overrides);
  } finally {
    await db.$disconnect();
  }
  process.stdout.write(
    catalogFile === undefined ? 'catalog seeded\n' : `catalog seeded with overrides from ${catalogFile}\n`,
  );
}

main().then(
  () => {
    process.exitCode = 0;
  },
  (err: unknown) => {
    process.stderr.write(`migrate failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
