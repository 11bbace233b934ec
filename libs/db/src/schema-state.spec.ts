import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@runplane/testing';
import { createPrismaClient, missingMigrations, repositoryRoot, shippedMigrations, withDatabaseAdmin } from '.';

describe('missingMigrations', () => {
  let database: TestDatabase;

  beforeEach(async () => {
    database = await createTestDatabase('schema-state');
  });
  afterEach(async () => {
    await database.drop();
  });

  it('lists the folders of prisma/migrations, oldest first', () => {
    const folders = readdirSync(join(repositoryRoot(), 'prisma', 'migrations'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(shippedMigrations()).toEqual(folders.sort());
    expect(shippedMigrations().length).toBeGreaterThan(0);
  });

  it('is empty on a migrated database, and names a shipped migration the database lacks', async () => {
    expect(await missingMigrations(database.url)).toEqual([]);
    expect(await missingMigrations(database.url, [...shippedMigrations(), '29991231000000_next'])).toEqual([
      '29991231000000_next',
    ]);
  });

  it('does not count a rolled-back or unfinished migration as applied', async () => {
    const [first, second] = shippedMigrations();
    const db = createPrismaClient(database.url, { poolSize: 1 });
    try {
      await db.$executeRaw`UPDATE _prisma_migrations SET rolled_back_at = now() WHERE migration_name = ${first}`;
      await db.$executeRaw`UPDATE _prisma_migrations SET finished_at = NULL WHERE migration_name = ${second}`;
    } finally {
      await db.$disconnect();
    }
    expect(await missingMigrations(database.url)).toEqual([first, second]);
  });

  it('names every shipped migration on a database never migrated', async () => {
    await withDatabaseAdmin(database.url, async (admin) => {
      await admin.drop(database.name);
      await admin.create(database.name);
    });
    expect(await missingMigrations(database.url)).toEqual(shippedMigrations());
  });
});
