import { type LogLine, type LogStreamMessage, logStreamChannels, type LogStreamOpen } from '@runplane/contracts';
import { createRedis, type Redis } from '@runplane/queue';
import { cleanupRedisPrefix, pollUntil, testRedisPrefix } from '@runplane/testing';
import { LogStreamClient, type LogStreamSink } from '../src/v2/logs/log-stream.client';

const REDIS_URL = 'redis://127.0.0.1:6379';

/** What a sink was told. */
function recordingSink(): LogStreamSink & { got: LogLine[]; endedWith: string[] } {
  const sink = {
    got: [] as LogLine[],
    endedWith: [] as string[],
    lines: (lines: LogLine[]) => void sink.got.push(...lines),
    heartbeat: () => undefined,
    ended: (message: string) => void sink.endedWith.push(message),
  };
  return sink;
}

describe('LogStreamClient against a scheduler speaking the log stream protocol over Redis', () => {
  const prefix = testRedisPrefix('v2-logs-client');
  const channels = logStreamChannels(prefix);
  let scheduler: Redis;
  let publisher: Redis;
  let client: LogStreamClient;
  const requests: LogStreamOpen[] = [];
  const closes: string[] = [];
  /** How the scheduler answers an open request; null: it does not. */
  let answer: ((request: LogStreamOpen) => LogStreamMessage[]) | null = null;

  beforeAll(async () => {
    scheduler = createRedis(REDIS_URL);
    publisher = createRedis(REDIS_URL);
    scheduler.on('message', (channel: string, text: string) => {
      if (channel === channels.close) return void closes.push(text);
      const request = JSON.parse(text) as LogStreamOpen;
      requests.push(request);
      for (const message of answer?.(request) ?? [])
        void publisher.publish(channels.out(request.streamId), JSON.stringify(message));
    });
    await scheduler.subscribe(channels.open, channels.close);
    client = new LogStreamClient({
      connect: () => createRedis(REDIS_URL),
      redisPrefix: prefix,
      openTimeoutMs: 300,
      silenceMs: 400,
    });
  });

  afterAll(async () => {
    await client.onApplicationShutdown();
    await cleanupRedisPrefix(publisher, prefix);
    await Promise.all([scheduler.quit(), publisher.quit()]);
  });

  const line: LogLine = { id: '1/0', ts: '2026-11-24T08:00:00.000000000Z', source: 'container', line: 'hello' };
  const request = { podId: 'pod1', tail: 100, since: null, after: null, sources: ['container' as const] };

  it('sends the open request, relays the lines, and a close reaches the scheduler', async () => {
    answer = () => [{ type: 'opened' }, { type: 'lines', lines: [line] }];
    const sink = recordingSink();
    const session = await client.open(request, sink);
    await pollUntil(() => sink.got.length === 1);
    expect(sink.got).toEqual([line]);
    expect(requests.at(-1)).toMatchObject({ podId: 'pod1', tail: 100, sources: ['container'] });
    await session.close();
    await pollUntil(() => closes.includes(requests.at(-1)?.streamId as string), { description: 'the close' });
  });

  it('fails with a 503-coded error when no scheduler takes the stream', async () => {
    answer = null;
    await expect(client.open(request, recordingSink())).rejects.toMatchObject({ code: 'NO_CAPACITY' });
  });

  it('ends a stream whose scheduler went silent, and tells the scheduler side to close', async () => {
    answer = () => [{ type: 'opened' }];
    const sink = recordingSink();
    await client.open(request, sink);
    await pollUntil(() => sink.endedWith.length === 1, { description: 'the silent stream ended' });
    expect(sink.endedWith).toEqual([
      'The scheduler serving this stream stopped answering; reconnect with Last-Event-ID',
    ]);
    await pollUntil(() => closes.includes(requests.at(-1)?.streamId as string));
  });

  it('an error message from the scheduler ends the stream with its text', async () => {
    answer = () => [{ type: 'opened' }, { type: 'error', message: 'the driver failed' }];
    const sink = recordingSink();
    await client.open(request, sink);
    await pollUntil(() => sink.endedWith.length === 1);
    expect(sink.endedWith).toEqual(['the driver failed']);
  });
});
