import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { redisTransportOptions } from '@runplane/contracts';
import { cleanupRedisPrefix, getFreePorts, pollUntil, testRedisPrefix } from '@runplane/testing';
import { Redis as SentinelClient } from 'ioredis';
import { checkRedis, closeRedis, createRedis, type Redis } from './index';

/**
 * A real redis-sentinel (apt's redis-sentinel) on a free port, watching the local Redis on 6379 as a master of its
 * own name: a client given only the Sentinel URL must find that Redis through it.
 */
describe('createRedis with a redis+sentinel:// URL', () => {
  const prefix = testRedisPrefix('queue-sentinel');
  const master = `runplane-${process.pid}-${Date.now()}`;
  const dir = mkdtempSync(path.join(tmpdir(), 'sentinel-'));
  let sentinel: ChildProcess;
  let port: number;
  let direct: Redis;

  beforeAll(async () => {
    [port] = (await getFreePorts(1)) as [number];
    const conf = path.join(dir, 'sentinel.conf');
    writeFileSync(
      conf,
      [`port ${port}`, 'bind 127.0.0.1', `dir ${dir}`, `sentinel monitor ${master} 127.0.0.1 6379 1`, ''].join('\n'),
    );
    sentinel = spawn('redis-sentinel', [conf], { stdio: 'ignore' });
    sentinel.once('error', (error) =>
      process.stderr.write(`redis-sentinel: ${error.message} (apt-get install redis-sentinel)\n`),
    );
    const probe = new SentinelClient({
      port,
      host: '127.0.0.1',
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    await pollUntil(
      async () =>
        (await probe.connect().then(
          () => probe.call('SENTINEL', 'get-master-addr-by-name', master),
          () => null,
        )) ?? undefined,
      {
        timeoutMs: 20_000,
        description: 'redis-sentinel to answer for its master',
      },
    );
    probe.disconnect();
    direct = createRedis('redis://127.0.0.1:6379');
  });

  afterAll(async () => {
    await cleanupRedisPrefix(direct, prefix);
    await closeRedis(direct);
    sentinel.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('reaches the master the Sentinel names: what it writes is in that Redis', async () => {
    const viaSentinel = createRedis(`redis+sentinel://127.0.0.1:${port}/${master}`, { keyPrefix: prefix });
    try {
      await checkRedis(viaSentinel, 10_000);
      await viaSentinel.set('written-through-sentinel', 'yes');
      expect(await direct.get(`${prefix}written-through-sentinel`)).toBe('yes');
    } finally {
      await closeRedis(viaSentinel);
    }
  });

  it("gives Nest's Redis transport the Sentinels and the master's name, which connect the same way", async () => {
    const options = redisTransportOptions(`redis+sentinel://127.0.0.1:${port},127.0.0.1:1/${master}/0`);
    expect(options).toEqual({
      sentinels: [
        { host: '127.0.0.1', port },
        { host: '127.0.0.1', port: 1 },
      ],
      name: master,
      db: 0,
    });
    const client = new SentinelClient({ ...options, lazyConnect: true });
    try {
      await client.connect();
      expect(await client.call('ROLE').then((role) => (role as unknown[])[0])).toBe('master');
    } finally {
      client.disconnect();
    }
  });
});
