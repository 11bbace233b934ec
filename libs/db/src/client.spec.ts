import { type AddressInfo, createServer, type Socket } from 'node:net';
import { createTestStores, type TestStores } from '@runplane/testing';
import {
  checkDatabase,
  createPrismaClient,
  type DatabaseClient,
  isForeignKeyViolation,
  isRecordNotFound,
  isUniqueViolation,
  newId,
  withTransaction,
} from '.';

describe('newId', () => {
  it('is lowercase alphanumeric, 14 characters by default, and of the asked length', () => {
    expect(newId()).toMatch(/^[a-z0-9]{14}$/);
    for (const length of [1, 8, 32, 100]) expect(newId(length)).toMatch(new RegExp(`^[a-z0-9]{${length}}$`));
    expect(() => newId(0)).toThrow(RangeError);
    expect(() => newId(2.5)).toThrow(RangeError);
  });

  it('does not repeat and uses the whole alphabet about evenly', () => {
    const ids = Array.from({ length: 20_000 }, () => newId());
    expect(new Set(ids).size).toBe(ids.length);
    const counts = new Map<string, number>();
    for (const char of ids.join('')) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(36);
    const expected = (20_000 * 14) / 36; // ~7778 per character
    for (const count of counts.values()) expect(Math.abs(count - expected) / expected).toBeLessThan(0.1);
  });
});

describe('checkDatabase', () => {
  it('rejects within its bound when the server accepts but never answers', async () => {
    // A listener that accepts connections and stays silent: without the bound the query would hang.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const db = createPrismaClient(`postgresql://postgres@127.0.0.1:${port}/none`, { connectTimeoutMs: 30_000 });
    await expect(checkDatabase(db, 300)).rejects.toThrow(/did not answer within 300 ms/);
    for (const socket of sockets) socket.destroy();
    silent.close();
    await db.$disconnect().catch(() => undefined);
  });

  it('rejects when nothing listens on the port', async () => {
    const db = createPrismaClient('postgresql://postgres@127.0.0.1:1/none');
    await expect(checkDatabase(db, 5000)).rejects.toThrow();
    await db.$disconnect();
  });
});

describe('with a database', () => {
  let stores: TestStores;
  let db: DatabaseClient;

  beforeAll(async () => {
    stores = await createTestStores('db-client');
    db = stores.db;
  });

  afterAll(() => stores.close());

  it('checkDatabase resolves against a live database', async () => {
    await expect(checkDatabase(db, 2000)).resolves.toBeUndefined();
  });

  it('withTransaction commits together, rolls back together, and nested calls join the outer one', async () => {
    const accountId = newId();
    await withTransaction(db, async (tx) => {
      await tx.account.create({ data: { id: accountId, name: 'a' } });
      await withTransaction(tx, (inner) =>
        inner.apiKey.create({ data: { id: newId(), accountId, name: 'k', prefix: 'rpa_', hash: newId(64) } }),
      );
    });
    expect(await db.apiKey.count({ where: { accountId } })).toBe(1);

    const failing = withTransaction(db, async (tx) => {
      await tx.apiKey.create({ data: { id: newId(), accountId, name: 'k2', prefix: 'rpa_', hash: newId(64) } });
      await withTransaction(tx, () => Promise.reject(new Error('boom')));
    });
    await expect(failing).rejects.toThrow('boom');
    expect(await db.apiKey.count({ where: { accountId } })).toBe(1);
  });

  it('classifies unique, foreign key and not-found errors', async () => {
    const accountId = newId();
    await db.account.create({ data: { id: accountId, name: 'b' } });
    const hash = newId(64);
    await db.apiKey.create({ data: { id: newId(), accountId, name: 'k', prefix: 'p', hash } });

    const duplicate = await db.apiKey
      .create({ data: { id: newId(), accountId, name: 'k', prefix: 'p', hash } })
      .catch((e: unknown) => e);
    expect(isUniqueViolation(duplicate)).toBe(true);
    expect(isForeignKeyViolation(duplicate)).toBe(false);

    const orphan = await db.apiKey
      .create({ data: { id: newId(), accountId: 'missing', name: 'k', prefix: 'p', hash: newId(64) } })
      .catch((e: unknown) => e);
    expect(isForeignKeyViolation(orphan)).toBe(true);

    const missing = await db.account.update({ where: { id: 'nope' }, data: { name: 'x' } }).catch((e: unknown) => e);
    expect(isRecordNotFound(missing)).toBe(true);
    expect(isUniqueViolation(new Error('P2002'))).toBe(false);
  });

  it('stores money exactly and cascades account deletion to tenant rows', async () => {
    const accountId = newId();
    await db.account.create({ data: { id: accountId, name: 'c' } });
    await db.usageInterval.create({
      data: {
        id: newId(),
        eventId: newId(),
        accountId,
        resourceKind: 'POD',
        resourceId: 'p1',
        ratePerHr: 0.1,
        startedAt: new Date(),
      },
    });
    await db.usageInterval.create({
      data: {
        id: newId(),
        eventId: newId(),
        accountId,
        resourceKind: 'POD',
        resourceId: 'p1',
        ratePerHr: 0.2,
        startedAt: new Date(),
      },
    });
    const sum = await db.usageInterval.aggregate({ where: { accountId }, _sum: { ratePerHr: true } });
    expect(sum._sum.ratePerHr?.toString()).toBe('0.3');
    await db.account.delete({ where: { id: accountId } });
    expect(await db.usageInterval.count({ where: { accountId } })).toBe(0);
  });
});

describe('createPrismaClient onConnectionError', () => {
  it('reports each failed attempt to open a pooled connection, and nothing for a failed query', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const errors: Error[] = [];
    const db = createPrismaClient(`postgresql://postgres@127.0.0.1:${port}/none`, {
      onConnectionError: (error) => errors.push(error),
    });
    try {
      await expect(db.$queryRawUnsafe('SELECT 1')).rejects.toThrow();
      await expect(db.$queryRawUnsafe('SELECT 1')).rejects.toThrow();
      expect(errors.map((error) => (error as Error & { code?: string }).code)).toEqual([
        'ECONNREFUSED',
        'ECONNREFUSED',
      ]);
    } finally {
      await db.$disconnect();
    }
  });

  it('reports nothing for a query the server refuses', async () => {
    const stores = await createTestStores('client-errors');
    const errors: Error[] = [];
    const db = createPrismaClient(stores.database.url, { onConnectionError: (error) => errors.push(error) });
    try {
      await expect(db.$queryRawUnsafe('SELECT * FROM no_such_table')).rejects.toThrow();
      expect(errors).toEqual([]);
    } finally {
      await db.$disconnect();
      await stores.close();
    }
  });
});
