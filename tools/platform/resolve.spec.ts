import { createPrismaClient, checkDatabase, ensureDatabaseExists, withDatabaseAdmin } from '@runplane/db';
import { getFreePort, isPortOpen } from '@runplane/testing';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { redisAnswers } from './net';
import { localDatabaseUrl, resolvePostgres } from './postgres';
import { resolveRedis } from './redis';
import { findExecutable, ServiceUnavailableError } from './services';

const SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const quiet = (): void => undefined;
const uniqueName = (): string => `rp_resolve_${process.pid}_${randomBytes(4).toString('hex')}`;

async function databaseExists(name: string): Promise<boolean> {
  return withDatabaseAdmin(SERVER_URL, (admin) => admin.exists(name));
}

async function dropDatabase(name: string): Promise<void> {
  await withDatabaseAdmin(SERVER_URL, (admin) => admin.drop(name));
}

/** A TCP server that answers like something other than Redis. */
async function listenNotRedis(): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  return { server, port: address.port };
}

describe('resolveRedis', () => {
  const emptyPathDir = mkdtempSync(join(tmpdir(), 'rp-empty-path-'));
  afterAll(() => rmSync(emptyPathDir, { recursive: true, force: true }));

  it('uses REDIS_URL when it is set, without looking elsewhere', async () => {
    const closed = await getFreePort();
    const service = await resolveRedis({
      redisUrl: 'redis://redis.example:6390',
      localHost: '127.0.0.1',
      localPort: closed,
      searchPath: emptyPathDir,
      log: quiet,
    });
    expect(service).toMatchObject({ url: 'redis://redis.example:6390', source: 'env' });
  });

  it('uses the Redis answering on the default port', async () => {
    const service = await resolveRedis({
      redisUrl: undefined,
      localHost: '127.0.0.1',
      localPort: 6379,
      searchPath: emptyPathDir,
      log: quiet,
    });
    expect(service).toMatchObject({ url: 'redis://127.0.0.1:6379', source: 'local' });
  });

  it('starts a private redis-server when nothing answers, and stops it', async () => {
    const binary = findExecutable('redis-server', '/usr/local/bin:/usr/bin:/bin');
    expect(binary).toBeDefined();
    const closed = await getFreePort();
    const service = await resolveRedis({
      redisUrl: undefined,
      localHost: '127.0.0.1',
      localPort: closed,
      searchPath: dirname(binary ?? ''),
      log: quiet,
    });
    const port = Number(new URL(service.url).port);
    expect(service.source).toBe('spawned');
    expect(service.pid).toBeGreaterThan(0);
    expect(await redisAnswers('127.0.0.1', port)).toBe(true);
    await service.stop();
    expect(await isPortOpen(port)).toBe(false);
  });

  it('says how to install Redis when nothing answers and redis-server is missing', async () => {
    const closed = await getFreePort();
    const attempt = resolveRedis({
      redisUrl: undefined,
      localHost: '127.0.0.1',
      localPort: closed,
      searchPath: emptyPathDir,
      log: quiet,
    });
    await expect(attempt).rejects.toThrow(ServiceUnavailableError);
    await expect(attempt).rejects.toThrow(/apt-get install redis-server[\s\S]*brew install redis[\s\S]*REDIS_URL/);
  });

  it('does not take another service on the Redis port for Redis', async () => {
    const { server, port } = await listenNotRedis();
    try {
      const attempt = resolveRedis({
        redisUrl: undefined,
        localHost: '127.0.0.1',
        localPort: port,
        searchPath: emptyPathDir,
        log: quiet,
      });
      await expect(attempt).rejects.toThrow(`Redis is not answering at 127.0.0.1:${port}`);
    } finally {
      server.close();
    }
  });
});

describe('resolvePostgres', () => {
  const created: string[] = [];
  afterAll(async () => {
    for (const name of created) await dropDatabase(name);
  });

  it('uses DATABASE_URL when it is set and creates its database', async () => {
    const name = uniqueName();
    created.push(name);
    const url = localDatabaseUrl('127.0.0.1', 5432, name);
    const closed = await getFreePort();
    const service = await resolvePostgres({
      databaseUrl: url,
      localHost: '127.0.0.1',
      localPort: closed,
      databaseName: 'unused',
      embeddedDataDir: undefined,
      ensureDatabase: ensureDatabaseExists,
      log: quiet,
    });
    expect(service).toMatchObject({ url, source: 'env' });
    expect(await databaseExists(name)).toBe(true);
  });

  it('uses the local Postgres on the default port, creating the database', async () => {
    const name = uniqueName();
    created.push(name);
    const service = await resolvePostgres({
      databaseUrl: undefined,
      localHost: '127.0.0.1',
      localPort: 5432,
      databaseName: name,
      embeddedDataDir: undefined,
      ensureDatabase: ensureDatabaseExists,
      log: quiet,
    });
    expect(service).toMatchObject({ url: `postgres://postgres@127.0.0.1:5432/${name}`, source: 'local' });
    expect(await databaseExists(name)).toBe(true);
  });

  it('asks for DATABASE_URL when nothing answers and embedded Postgres is off', async () => {
    const closed = await getFreePort();
    const attempt = resolvePostgres({
      databaseUrl: undefined,
      localHost: '127.0.0.1',
      localPort: closed,
      databaseName: 'runplane',
      embeddedDataDir: undefined,
      ensureDatabase: ensureDatabaseExists,
      log: quiet,
    });
    await expect(attempt).rejects.toThrow(/not answering at 127\.0\.0\.1:\d+; set DATABASE_URL/);
  });

  it('starts embedded Postgres when nothing answers, with a usable database', async () => {
    // The parent must be traversable: as root, embedded Postgres runs as a separate system user.
    const parent = mkdtempSync(join(tmpdir(), 'rp-embedded-'));
    chmodSync(parent, 0o755);
    const closed = await getFreePort();
    const service = await resolvePostgres({
      databaseUrl: undefined,
      localHost: '127.0.0.1',
      localPort: closed,
      databaseName: 'runplane',
      embeddedDataDir: join(parent, 'postgres'),
      ensureDatabase: ensureDatabaseExists,
      log: quiet,
    });
    const port = Number(new URL(service.url).port);
    try {
      expect(service.source).toBe('embedded');
      expect(service.pid).toBeGreaterThan(0);
      const db = createPrismaClient(service.url);
      await expect(checkDatabase(db, 5000)).resolves.toBeUndefined();
      await db.$disconnect();
    } finally {
      await service.stop();
      rmSync(parent, { recursive: true, force: true });
    }
    expect(await isPortOpen(port)).toBe(false);
  }, 120_000);
});
