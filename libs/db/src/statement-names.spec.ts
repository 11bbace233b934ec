import { createTestStores, type TestStores } from '@runplane/testing';
import { createPrismaClient, newId } from '.';
import { preparedStatementNames, preparedStatementsOf } from './statement-names';

describe('preparedStatementNames', () => {
  it('names each distinct query text once, the same name every time, and no two texts alike', () => {
    const names = preparedStatementNames();
    const first = names({ sql: 'SELECT 1' });
    expect(first).toMatch(/^rp_[\w-]+$/);
    expect(names({ sql: 'SELECT 1' })).toBe(first);
    expect(names({ sql: 'SELECT 2' })).not.toBe(first);
  });

  it('gives texts beyond its bound the unnamed statement, and keeps naming the ones it knows', () => {
    const names = preparedStatementNames(2);
    const a = names({ sql: 'SELECT 1' });
    names({ sql: 'SELECT 2' });
    expect(names({ sql: 'SELECT 3' })).toBe('');
    expect(names({ sql: 'SELECT 1' })).toBe(a);
  });
});

describe('preparedStatementsOf', () => {
  it('prepares unless the URL says pgbouncer=true, and gives pg the URL without that parameter', () => {
    const plain = 'postgresql://postgres@127.0.0.1:5432/runplane?sslmode=disable';
    expect(preparedStatementsOf(plain)).toEqual({ url: plain, prepared: true });
    const bouncer = preparedStatementsOf(
      'postgresql://postgres@127.0.0.1:6432/runplane?pgbouncer=true&sslmode=disable',
    );
    expect(bouncer).toEqual({ url: 'postgresql://postgres@127.0.0.1:6432/runplane?sslmode=disable', prepared: false });
    expect(preparedStatementsOf('postgres://h/db?pgbouncer=false')).toEqual({ url: 'postgres://h/db', prepared: true });
  });
});

describe('a client on a live database', () => {
  let stores: TestStores;

  beforeAll(async () => {
    stores = await createTestStores('db-statements');
    await stores.db.account.create({ data: { id: newId(), name: 'prepared' } });
  });
  afterAll(() => stores.close());

  /** The statements the client's one connection has prepared, after reading accounts twice. */
  async function preparedAfterReads(url: string): Promise<{ name: string; statement: string }[]> {
    const db = createPrismaClient(url, { poolSize: 1 });
    try {
      for (let read = 0; read < 2; read += 1) expect(await db.account.findMany()).toHaveLength(1);
      return await db.$queryRaw<{ name: string; statement: string }[]>`
        SELECT name, statement FROM pg_prepared_statements`;
    } finally {
      await db.$disconnect();
    }
  }

  it('runs each query shape as a statement its connection prepared once', async () => {
    const statements = await preparedAfterReads(stores.database.url);
    const accounts = statements.filter((s) => s.name.startsWith('rp_') && s.statement.includes('"accounts"'));
    expect(accounts).toHaveLength(1);
  });

  it('prepares nothing with pgbouncer=true', async () => {
    const url = new URL(stores.database.url);
    url.searchParams.set('pgbouncer', 'true');
    expect(await preparedAfterReads(url.toString())).toEqual([]);
  });
});
