import { createRedis, type Redis } from '@runplane/queue';
import { PRELUDE } from '../lua';
import { channelOf, PARKING } from './channels';
import { indexMember, JobKeys, parseIndexMember } from './keys';
import { encodeFinished, type FinishedJob, parseFinished } from './finished';
import { encodeTakerEntry, parseTakerEntry, type TakerEntry } from './takers';
import { encodeWake, parseWake, type WakeMessage } from './wake-messages';

const MESSAGES: WakeMessage[] = [
  { type: 'queued', endpointId: 'ep1', origin: 'replica-a', jobId: 'job-1-u1' },
  { type: 'queued', endpointId: 'ep1', origin: 'replica-a' },
  { type: 'jobChanged', endpointId: 'ep1', jobId: 'job-1-u1' },
  { type: 'stopRequested', endpointId: 'ep1', workerId: 'worker|with|bars' },
  {
    type: 'handOff',
    origin: 'replica-b',
    takeId: 'take-7',
    endpointId: 'ep2',
    jobId: 'sync-job-2-u1',
    workerId: 'w|2',
    input: JSON.stringify({ prompt: 'two\nlines' }),
    extra: JSON.stringify({ s3Config: { bucket: 'b' } }),
    traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  },
];

describe('job engine protocol', () => {
  let redis: Redis;
  /** Runs `body` after the scripts' prelude (ARGV[1] = base) and returns its reply. */
  const lua = (body: string, ...argv: string[]): Promise<unknown> =>
    redis.eval(`${PRELUDE}\n${body}`, 0, 'rp:jobs:', ...argv);

  beforeAll(() => {
    redis = createRedis('redis://127.0.0.1:6379');
  });
  afterAll(() => redis.quit());

  it.each(MESSAGES)('round-trips a $type wake through its encoder and parser', (message) => {
    expect(parseWake(encodeWake(message))).toEqual(message);
  });

  it('reads the messages the Lua scripts publish as the TypeScript encodes them', async () => {
    const [, , changed, stop, handOff] = MESSAGES as [WakeMessage, WakeMessage, WakeMessage, WakeMessage, WakeMessage];
    const fromLua = await lua(
      `return {
        jobChangedWake(ARGV[2], ARGV[3]),
        stopWake(ARGV[2], ARGV[4]),
        handOffWake(ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10], ARGV[11], ARGV[12])
      }`,
      'ep1',
      'job-1-u1',
      'worker|with|bars',
      'replica-b',
      'take-7',
      'ep2',
      'sync-job-2-u1',
      'w|2',
      (handOff as { input: string }).input,
      (handOff as { extra: string }).extra,
      (handOff as { traceparent: string }).traceparent,
    );
    expect(fromLua).toEqual([encodeWake(changed), encodeWake(stop), encodeWake(handOff)]);
    expect((fromLua as string[]).map(parseWake)).toEqual([changed, stop, handOff]);
  });

  it('ignores what is not a wake message', () => {
    for (const text of ['', 'x|ep|id', 'j|ep', 's|', 'h|origin|take|ep|id|w', 't|']) {
      expect(parseWake(text)).toBeUndefined();
    }
  });

  it('wakes the parking channel of each message; a hand-off wakes none', () => {
    const [queued, , changed, stop, handOff] = MESSAGES as WakeMessage[];
    expect(channelOf(queued as WakeMessage)).toBe(PARKING.takers('ep1'));
    expect(channelOf(changed as WakeMessage)).toBe(PARKING.job('ep1', 'job-1-u1'));
    expect(channelOf(stop as WakeMessage)).toBe(PARKING.stops('ep1', 'worker|with|bars'));
    expect(channelOf(handOff as WakeMessage)).toBeUndefined();
  });

  it('round-trips a registered take, and the Lua reads it the same way', async () => {
    const entry: TakerEntry = { origin: 'replica-a', takeId: 'take-1', expiresAt: 1_700_000_000_000, workerId: 'w|1' };
    const text = encodeTakerEntry(entry);
    expect(parseTakerEntry(text)).toEqual(entry);
    const fromLua = (await lua('return { parseTaker(ARGV[2]) }', text)) as string[];
    expect(fromLua).toEqual([entry.origin, entry.takeId, String(entry.expiresAt), entry.workerId]);
    expect(parseTakerEntry('no-bars')).toBeUndefined();
  });

  it('writes a finished job in Lua as the TypeScript reads it, taken or never taken', async () => {
    const taken: FinishedJob = {
      endpointId: 'ep1',
      status: 'COMPLETED',
      queuedAt: 1_700_000_000_000,
      takenAt: 1_700_000_002_000,
      doneAt: 1_700_000_003_000,
    };
    const untaken: FinishedJob = { endpointId: 'ep1', status: 'TIMED_OUT', queuedAt: 1, doneAt: 5 };
    for (const job of [taken, untaken]) {
      const fromLua = await lua(
        'return finishedEntry(ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6])',
        job.endpointId,
        job.status,
        String(job.queuedAt),
        job.takenAt === undefined ? '' : String(job.takenAt),
        String(job.doneAt),
      );
      expect(fromLua).toBe(encodeFinished(job));
      expect(parseFinished(fromLua as string)).toEqual(job);
    }
    expect(parseFinished('ep1|COMPLETED|x|1|2')).toBeUndefined();
  });

  it('lays out keys and index members the same way in TypeScript and in Lua', async () => {
    const keys = new JobKeys('rp:jobs:');
    const fromLua = await lua(
      `return { jkey('ep', 'id'), skey('ep', 'id'), ekey('ep', 'queued'), wkey('ep', 'w'), stopkey('ep', 'w'),
        retiredkey('ep', 'w'), gkey('outbox'), member('ep', 'id'), { split('ep/a/b') } }`,
    );
    expect(fromLua).toEqual([
      keys.job('ep', 'id'),
      keys.stream('ep', 'id'),
      keys.endpoint('ep', 'queued'),
      keys.workerJobs('ep', 'w'),
      keys.stops('ep', 'w'),
      keys.retired('ep', 'w'),
      keys.outbox,
      indexMember('ep', 'id'),
      ['ep', 'a/b'],
    ]);
    expect(parseIndexMember('ep/a/b')).toEqual({ endpointId: 'ep', id: 'a/b' });
  });
});
