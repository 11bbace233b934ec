import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase } from '@runplane/testing';
import { releaseQueryCompilerSource } from './query-compiler-source';

const REPO_ROOT = resolve(__dirname, '..', '..', '..');

/**
 * Runs in a plain Node process (jest keeps its own module registry, not Node's cache): starts a client's engine,
 * releases the compiler source, and reports what Node's module cache holds and whether queries still run.
 */
const SCRIPT = `
const { createPrismaClient, releaseQueryCompilerSource } = require('./libs/db/src');
const cached = () => Object.keys(require.cache).filter((file) => file.endsWith('.wasm-base64.js'));
const children = () =>
  Object.values(require.cache).flatMap((m) => m.children.filter((c) => c.id.endsWith('.wasm-base64.js')));
(async () => {
  const first = createPrismaClient(process.env.DATABASE_URL);
  await first.$connect();
  const loaded = cached().length;
  const released = releaseQueryCompilerSource();
  const after = { cached: cached().length, children: children().length };
  const rows = await first.$queryRawUnsafe('SELECT 1 AS one');
  const second = createPrismaClient(process.env.DATABASE_URL);
  const gpuTypes = await second.gpuType.count();
  await Promise.all([first.$disconnect(), second.$disconnect()]);
  process.stdout.write(JSON.stringify({ loaded, released, after, rows, gpuTypes }));
})();
`;

describe('releaseQueryCompilerSource', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('compiler-source');
  });

  afterAll(async () => {
    await database.drop();
  });

  it("drops Prisma's base64 compiler module from Node's cache; clients old and new query on", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['-r', '@swc-node/register', '-e', SCRIPT], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: database.url },
    });
    const report = JSON.parse(stdout) as Record<string, unknown>;
    expect(report).toEqual({
      loaded: 1,
      released: 1,
      after: { cached: 0, children: 0 },
      rows: [{ one: 1 }],
      gpuTypes: expect.any(Number),
    });
  });

  it('leaves a cache without the compiler module as it is', () => {
    const cache: NodeJS.Require['cache'] = {};
    expect(releaseQueryCompilerSource(cache)).toBe(0);
  });
});
