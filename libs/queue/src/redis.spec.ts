import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { cleanupRedisPrefix, testRedisPrefix } from '@runplane/testing';
import { checkRedis, createRedis, type Redis, redisConnectionErrors } from './index';

const REDIS_URL = 'redis://127.0.0.1:6379';

async function closedPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Minimal RESP server: answers INFO and other commands, swallows PING. */
async function startSilentRedis(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (data: Buffer) => {
      for (const command of data.toString('utf8').split('*').slice(1)) {
        const name = command.split('\r\n')[2]?.toUpperCase();
        if (name === 'PING') continue;
        const info = '# Server\r\nredis_version:7.0.0\r\nloading:0\r\n';
        socket.write(name === 'INFO' ? `$${Buffer.byteLength(info)}\r\n${info}\r\n` : '+OK\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return { port, close };
}

describe('createRedis', () => {
  const prefix = testRedisPrefix('queue-redis');
  let prefixed: Redis;
  let raw: Redis;

  beforeAll(() => {
    prefixed = createRedis(REDIS_URL, { keyPrefix: prefix.slice(0, -1) });
    raw = createRedis(REDIS_URL);
  });
  afterAll(async () => {
    await cleanupRedisPrefix(raw, prefix);
    await Promise.all([prefixed.quit(), raw.quit()]);
  });

  it('connects eagerly and stores keys under the normalised prefix', async () => {
    await prefixed.set('greeting', 'hello');
    expect(prefixed.options.keyPrefix).toBe(prefix);
    expect(await raw.get(`${prefix}greeting`)).toBe('hello');
    await checkRedis(prefixed);
  });

  it('cleanupRedisPrefix deletes only the keys under the prefix, via either client', async () => {
    const other = testRedisPrefix('queue-redis-other');
    await raw.set(`${other}keep`, '1');
    await prefixed.set('a', '1');
    await prefixed.set('b:c', '1');
    expect(await cleanupRedisPrefix(prefixed, prefix)).toBe(3);
    expect(await raw.keys(`${prefix}*`)).toEqual([]);
    expect(await raw.get(`${other}keep`)).toBe('1');
    await prefixed.set('d', '1');
    expect(await cleanupRedisPrefix(prefixed, 'd')).toBe(1);
    expect(await cleanupRedisPrefix(raw, other)).toBe(1);
  });
});

describe('checkRedis', () => {
  it('rejects fast when Redis is unreachable, right after creation and while reconnecting', async () => {
    const redis = createRedis(`redis://127.0.0.1:${await closedPort()}`, { connectTimeoutMs: 500 });
    try {
      // The connection error ends the first check, not its 5 s timeout; the second one refuses without a PING.
      await expect(checkRedis(redis, 5_000)).rejects.toThrow(/^Redis is not ready: .*ECONNREFUSED/);
      await expect(checkRedis(redis, 5_000)).rejects.toThrow(
        /^Redis is not ready \(status (reconnecting|connecting|close)/,
      );
    } finally {
      redis.disconnect();
    }
  });

  it('waits for a client that is still making its first connection', async () => {
    const redis = createRedis(REDIS_URL);
    try {
      expect(redis.status).not.toBe('ready');
      await expect(checkRedis(redis)).resolves.toBeUndefined();
    } finally {
      redis.disconnect();
    }
  });

  it('rejects with a timeout when PING does not answer in time', async () => {
    // A stand-in server that completes the handshake but never answers PING: pausing the shared Redis would stall
    // every other test file running against it.
    const silent = await startSilentRedis();
    const redis = createRedis(`redis://127.0.0.1:${silent.port}`);
    try {
      await redis.info();
      await expect(checkRedis(redis, 100)).rejects.toThrow(/timed out after 100 ms/);
    } finally {
      redis.disconnect();
      await silent.close();
    }
  });
});

describe('redisConnectionErrors', () => {
  it('counts the connection errors of the clients createRedis made', async () => {
    const before = redisConnectionErrors();
    const redis = createRedis(`redis://127.0.0.1:${await closedPort()}`, { connectTimeoutMs: 500 });
    try {
      await expect(checkRedis(redis, 5_000)).rejects.toThrow(/ECONNREFUSED/);
      expect(redisConnectionErrors()).toBeGreaterThan(before);
    } finally {
      redis.disconnect();
    }
  });
});
