import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LogStreamMessage, logStreamChannels, type LogStreamOpen } from '@runplane/contracts';
import { createRedis, type Redis } from '@runplane/queue';
import { cleanupRedisPrefix, pollUntil, testRedisPrefix } from '@runplane/testing';
import type { ComputeDriver, LogFollowRequest } from '../compute-driver';
import { LocalDriver } from '../local/local-driver';
import type { LocalLogFollower } from '../local/local-logs';
import { LogStreamServer } from './log-stream-server';

const REDIS_URL = 'redis://127.0.0.1:6379';

/** A local driver that remembers the followers it handed out. */
function recordingDriver(stateDir: string, followers: LocalLogFollower[]): ComputeDriver {
  const driver = new LocalDriver({ stateDir, workDir: stateDir, machines: [], stopGraceMs: 100, inheritedEnv: {} });
  const follow = driver.followLogs.bind(driver);
  driver.followLogs = (request: LogFollowRequest) => {
    const follower = follow(request);
    followers.push(follower as LocalLogFollower);
    return follower;
  };
  return driver;
}

describe('LogStreamServer (Redis pub/sub, several replicas)', () => {
  const prefix = testRedisPrefix('log-stream-server');
  const channels = logStreamChannels(prefix);
  let stateDir: string;
  let gateway: Redis;
  let publisher: Redis;
  const followers: LocalLogFollower[] = [];
  const servers: LogStreamServer[] = [];
  const received = new Map<string, LogStreamMessage[]>();

  beforeAll(async () => {
    stateDir = mkdtempSync(join(tmpdir(), 'log-stream-server-'));
    mkdirSync(join(stateDir, 'workloads'), { recursive: true });
    writeFileSync(join(stateDir, 'workloads', 'pod1.log'), 'hello\nworld\n');
    for (const replicaId of ['a', 'b']) {
      const server = new LogStreamServer({
        redisUrl: REDIS_URL,
        redisPrefix: prefix,
        driver: recordingDriver(stateDir, followers),
        replicaId,
        heartbeatMs: 100,
        log: () => undefined,
      });
      await server.onApplicationBootstrap();
      servers.push(server);
    }
    gateway = createRedis(REDIS_URL);
    publisher = createRedis(REDIS_URL);
    gateway.on('message', (channel: string, text: string) => {
      received.set(channel, [...(received.get(channel) ?? []), JSON.parse(text) as LogStreamMessage]);
    });
  });

  afterAll(async () => {
    for (const server of servers) await server.onApplicationShutdown();
    await cleanupRedisPrefix(publisher, prefix);
    await Promise.all([gateway.quit(), publisher.quit()]);
    rmSync(stateDir, { recursive: true, force: true });
  });

  const open = async (streamId: string): Promise<void> => {
    await gateway.subscribe(channels.out(streamId));
    const request: LogStreamOpen = {
      streamId,
      podId: 'pod1',
      tail: 10,
      since: null,
      after: null,
      sources: ['container'],
    };
    await publisher.publish(channels.open, JSON.stringify(request));
  };
  const served = (): number => servers.reduce((n, s) => n + s.openStreams, 0);

  it('one replica claims a stream and sends opened, then the lines', async () => {
    await open('stream-one-0001');
    const messages = await pollUntil(() => {
      const got = received.get(channels.out('stream-one-0001')) ?? [];
      return got.some((m) => m.type === 'lines') && got;
    });
    expect(messages[0]).toEqual({ type: 'opened' });
    expect(messages.filter((m) => m.type === 'opened')).toHaveLength(1);
    expect(messages.flatMap((m) => (m.type === 'lines' ? m.lines.map((l) => l.line) : []))).toEqual(['hello', 'world']);
    expect(served()).toBe(1);
    expect(followers).toHaveLength(1);
  });

  it('a close message releases the stream and its follower at once', async () => {
    await publisher.publish(channels.close, 'stream-one-0001');
    await pollUntil(() => served() === 0, { description: 'the stream closed' });
    expect(followers[0]?.isClosed).toBe(true);
  });

  it('a gateway that stops listening is noticed by the next heartbeat', async () => {
    await open('stream-two-0002');
    await pollUntil(() => served() === 1);
    await gateway.unsubscribe(channels.out('stream-two-0002'));
    await pollUntil(() => served() === 0, { description: 'the unheard stream ended' });
    expect(followers[1]?.isClosed).toBe(true);
  });
});
