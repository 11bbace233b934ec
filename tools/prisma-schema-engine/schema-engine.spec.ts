import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databaseNameOf, repositoryRoot, withDatabaseAdmin, withDatabaseName } from '@runplane/db';
import { createTestDatabase, type TestDatabase } from '@runplane/testing';

const root = repositoryRoot();
const engine = join(root, 'tools', 'prisma-schema-engine', 'schema-engine.mjs');
const env = {
  PATH: `${join(root, 'node_modules', '.bin')}:/usr/bin:/bin`,
  PRISMA_SCHEMA_ENGINE_BINARY: engine,
  CHECKPOINT_DISABLE: '1',
};

function run(file: string, args: string[], cwd = root): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr });
    });
  });
}

const prisma = (args: string[], cwd: string) => run(process.execPath, [join(root, 'node_modules', 'prisma', 'build', 'index.js'), ...args], cwd);

describe('offline schema engine', () => {
  let server: TestDatabase;
  let scratchUrl: string;
  const dirs: string[] = [];

  beforeAll(async () => {
    server = await createTestDatabase('schema-engine');
    scratchUrl = withDatabaseName(server.url, `${server.name}_scratch`);
  });

  afterAll(async () => {
    await withDatabaseAdmin(server.url, (admin) => admin.drop(databaseNameOf(scratchUrl)));
    await server.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('runs as an executable and answers the one-shot cli commands', async () => {
    expect((await run(engine, ['--version'])).stdout).toMatch(/^schema-engine-wasm \S+/);
    const datasource = JSON.stringify({ url: scratchUrl });
    expect((await run(engine, ['--datasource', datasource, 'cli', 'can-connect-to-database'])).code).toBe(1);
    expect((await run(engine, ['--datasource', datasource, 'cli', 'create-database'])).code).toBe(0);
    expect((await run(engine, ['--datasource', datasource, 'cli', 'can-connect-to-database'])).code).toBe(0);
    expect((await run(engine, ['--datasource', datasource, 'cli', 'drop-database'])).code).toBe(0);
    await withDatabaseAdmin(server.url, async (admin) => expect(await admin.exists(databaseNameOf(scratchUrl))).toBe(false));
    const unknown = await run(engine, ['--datasource', datasource, 'cli', 'no-such-command']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Unsupported schema engine cli command');
  });

  it('serves migrate dev --create-only, deploy and status with no download', async () => {
    // A private copy of the schema, so the migration it writes lands outside the repository.
    const dir = mkdtempSync(join(tmpdir(), 'runplane-engine-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'prisma'));
    copyFileSync(join(root, 'prisma', 'schema.prisma'), join(dir, 'prisma', 'schema.prisma'));
    const config = { schema: 'prisma/schema.prisma', migrations: { path: 'prisma/migrations' }, datasource: { url: scratchUrl } };
    writeFileSync(join(dir, 'prisma.config.ts'), `export default ${JSON.stringify(config)};\n`);

    const created = await prisma(['migrate', 'dev', '--create-only', '--name', 'init'], dir);
    expect(created.stderr + created.stdout).toContain('created the following migration');
    const [migration] = readdirSync(join(dir, 'prisma', 'migrations')).filter((name) => name.endsWith('_init'));
    const sql = readFileSync(join(dir, 'prisma', 'migrations', migration ?? 'missing', 'migration.sql'), 'utf8');
    expect(sql).toContain('CREATE TABLE "pods"');

    expect((await prisma(['migrate', 'deploy'], dir)).code).toBe(0);
    const status = await prisma(['migrate', 'status'], dir);
    expect(status.stdout).toContain('Database schema is up to date');
    // In sync: create-only writes an empty migration (Prisma's way to start a hand-written one).
    await prisma(['migrate', 'dev', '--create-only', '--name', 'nothing'], dir);
    const [empty] = readdirSync(join(dir, 'prisma', 'migrations')).filter((name) => name.endsWith('_nothing'));
    const emptySql = readFileSync(join(dir, 'prisma', 'migrations', empty ?? 'missing', 'migration.sql'), 'utf8');
    expect(emptySql.replace(/--.*$/gm, '').trim()).toBe('');
  });
});
