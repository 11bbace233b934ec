import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@runplane/testing';
import {
  applyMigrations,
  createPrismaClient,
  databaseNameOf,
  ensureDatabaseExists,
  repositoryRoot,
  withDatabaseAdmin,
  withDatabaseName,
} from '.';

const EXPECTED_TABLES = [
  '_prisma_migrations',
  'accounts',
  'api_keys',
  'billing_records',
  'capacity_reservations',
  'container_registry_auths',
  'cpu_flavors',
  'data_centers',
  'endpoint_releases',
  'endpoints',
  'gpu_types',
  'machines',
  'network_volumes',
  'pods',
  'public_endpoints',
  's3_keys',
  'savings_plans',
  'ssh_keys',
  'templates',
  'usage_events',
  'usage_intervals',
  'usage_ledger',
  'webhook_attempts',
  'webhook_deliveries',
  'webhook_signing_secrets',
  'worker_tokens',
];

async function tablesOf(url: string): Promise<string[]> {
  const db = createPrismaClient(url);
  try {
    const rows = await db.$queryRaw<
      { tablename: string }[]
    >`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`;
    return rows.map((row) => row.tablename);
  } finally {
    await db.$disconnect();
  }
}

function runPrisma(args: string[], databaseUrl: string): Promise<{ code: number; stdout: string }> {
  const root = repositoryRoot();
  const env = {
    PATH: `${join(root, 'node_modules', '.bin')}:/usr/bin:/bin`,
    DATABASE_URL: databaseUrl,
    PRISMA_SCHEMA_ENGINE_BINARY: join(root, 'tools', 'prisma-schema-engine', 'schema-engine.mjs'),
    CHECKPOINT_DISABLE: '1',
  };
  const cli = join(root, 'node_modules', 'prisma', 'build', 'index.js');
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { cwd: root, env }, (err, stdout) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout });
    });
  });
}

describe('migrations', () => {
  let scratch: TestDatabase;
  let emptyUrl: string;

  beforeAll(async () => {
    // A database from the template only serves for its server URL; the empty one is made by hand.
    scratch = await createTestDatabase('migrations');
    emptyUrl = withDatabaseName(scratch.url, `${scratch.name}_empty`);
  });

  afterAll(async () => {
    await withDatabaseAdmin(scratch.url, (admin) => admin.drop(databaseNameOf(emptyUrl)));
    await scratch.drop();
  });

  it('apply to an empty database, and a second run changes nothing', async () => {
    await ensureDatabaseExists(emptyUrl);
    await ensureDatabaseExists(emptyUrl); // idempotent
    expect(await tablesOf(emptyUrl)).toEqual([]);

    await applyMigrations(emptyUrl);
    expect(await tablesOf(emptyUrl)).toEqual(EXPECTED_TABLES);

    const db = createPrismaClient(emptyUrl);
    try {
      await db.account.create({ data: { id: 'acct1', name: 'kept' } });
      await applyMigrations(emptyUrl);
      const applied = await db.$queryRaw<
        { n: bigint }[]
      >`SELECT count(*) AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL`;
      expect(Number(applied[0]?.n)).toBeGreaterThanOrEqual(1);
      expect(await db.account.findUnique({ where: { id: 'acct1' } })).toMatchObject({ name: 'kept' });
    } finally {
      await db.$disconnect();
    }
    expect(await tablesOf(emptyUrl)).toEqual(EXPECTED_TABLES);
  });

  it('agree with schema.prisma (migrate diff finds nothing)', async () => {
    const result = await runPrisma(
      [
        'migrate',
        'diff',
        '--from-migrations',
        'prisma/migrations',
        '--to-schema',
        'prisma/schema.prisma',
        '--exit-code',
      ],
      scratch.url,
    );
    expect(result.stdout).toContain('No difference detected');
    expect(result.code).toBe(0);
  });

  it('report a failure instead of hanging when the database is unreachable', async () => {
    await expect(applyMigrations('postgresql://postgres@127.0.0.1:1/nowhere', { timeoutMs: 60_000 })).rejects.toThrow(
      /prisma migrate deploy failed/,
    );
  });
});
