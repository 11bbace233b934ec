import { randomUUID } from 'node:crypto';
import { pollUntil } from '@runplane/testing';
import { parkedOn, startEngine, submission, type EngineFixture } from './__fixtures__/engine';
import { indexMember, QUEUE_TTL_ID } from './protocol';

describe('RedisJobEngine: the stored layout of a queued job', () => {
  let f: EngineFixture;

  beforeAll(() => {
    f = startEngine('jobs-stored-layout');
  });
  afterAll(async () => {
    await f.close();
  });

  it('records a queued job without the fields that hold their defaults', async () => {
    const { id } = await f.engine.submit(submission('lay1'));
    const hash = await f.redis.hgetall(f.keys.job('lay1', id));
    expect(Object.keys(hash).sort()).toEqual(['accountId', 'input', 'status', 'submittedAt'].sort());
    expect(await f.engine.get('lay1', id)).toEqual({ id, status: 'IN_QUEUE', retries: 0 });
  });

  it('reads the fields it left out as their defaults: deadline, delay, retention and ttl', async () => {
    const ep = 'lay4';
    const started = f.clock.now();
    const run = await f.engine.submit(submission(ep));
    const sync = await f.engine.submit(submission(ep, { sync: true }));
    const expiryOf = async (id: string) => Number(await f.redis.zscore(f.keys.global('expiry'), indexMember(ep, id)));
    // Queued, the endpoint's queue member in the expiry index stands for both; once taken, each has its own.
    expect(await expiryOf(QUEUE_TTL_ID)).toBe(started + 86_400_000);
    expect(await f.redis.zscore(f.keys.global('expiry'), indexMember(ep, run.id))).toBeNull();
    f.clock.advance(250);
    expect(await f.engine.take({ endpointId: ep, workerId: 'w1', count: 2, waitMs: 0 })).toHaveLength(2);
    expect(await expiryOf(run.id)).toBe(started + 86_400_000);
    const deadline = await f.redis.zscore(f.keys.global('deadlines'), indexMember(ep, run.id));
    expect(Number(deadline)).toBe(started + 250 + 600_000);
    expect(await f.engine.get(ep, run.id)).toMatchObject({ delayTime: 250 });
    await f.engine.complete(ep, 'w1', run.id, { output: 1 });
    await f.engine.complete(ep, 'w1', sync.id, { output: 2 });
    expect(await expiryOf(run.id)).toBe(started + 250 + 30 * 60_000);
    expect(await expiryOf(sync.id)).toBe(started + 250 + 60_000);
    // Set apart from the default, each is written out and read back.
    const own = await f.engine.submit(
      submission(ep, {
        policy: { executionTimeoutMs: 5_000, ttlMs: 60_000, lowPriority: false },
        retentionMs: 120_000,
      }),
    );
    expect(await f.redis.hmget(f.keys.job(ep, own.id), 'executionTimeoutMs', 'ttlAt', 'retentionMs')).toEqual([
      '5000',
      String(started + 250 + 60_000),
      '120000',
    ]);
  });

  it('keeps the fields that differ from their defaults, and gives a taker its extra keys', async () => {
    const job = submission('lay2', { extra: { webhookSecret: 's' }, sync: true });
    const { id } = await f.engine.submit({ ...job, policy: { ...job.policy, lowPriority: true } });
    expect(await f.redis.hmget(f.keys.job('lay2', id), 'lowPriority', 'sync')).toEqual(['1', '1']);
    const taken = await f.engine.take({ endpointId: 'lay2', workerId: 'w1', count: 1, waitMs: 0 });
    expect(taken).toEqual([{ id, input: { prompt: 'hello' }, webhookSecret: 's' }]);
  });

  it('keeps a job only in the indexes of its state: queued, cancelled, taken, re-queued and taken again, done', async () => {
    const ep = 'lay5';
    const index = (name: 'queued' | 'recent') => f.redis.zrange(f.keys.endpoint(ep, name), '0', '-1');
    const low = () => f.redis.smembers(f.keys.endpoint(ep, 'low'));
    const running = () => f.redis.smembers(f.keys.endpoint(ep, 'running'));
    const lowPolicy = { executionTimeoutMs: 600_000, ttlMs: 86_400_000, lowPriority: true };
    const slow = await f.engine.submit(submission(ep, { policy: lowPolicy }));
    f.clock.advance(1);
    const plain = await f.engine.submit(submission(ep));
    f.clock.advance(1);
    const dropped = await f.engine.submit(submission(ep, { policy: lowPolicy }));
    expect((await low()).sort()).toEqual([slow.id, dropped.id].sort());

    // A queued job that ends leaves its queue and joins the recent ones.
    await f.engine.cancel(ep, dropped.id);
    expect(await index('queued')).toEqual([slow.id, plain.id]);
    expect(await low()).toEqual([slow.id]);
    expect(await index('recent')).toEqual([dropped.id]);

    // Taken: out of the queue and `low`, running, among the recent ones (scored by submission).
    expect((await f.engine.take({ endpointId: ep, workerId: 'w1', count: 2, waitMs: 0 })).length).toBe(2);
    expect([await index('queued'), await low()]).toEqual([[], []]);
    expect((await running()).sort()).toEqual([slow.id, plain.id].sort());
    expect(await index('recent')).toEqual([slow.id, plain.id, dropped.id]);

    // w1 is lost: both are queued again (the low one in `low` again), then w2 takes them.
    f.clock.advance(30_001);
    await f.engine.sweep();
    expect(await index('queued')).toHaveLength(2);
    expect(await low()).toEqual([slow.id]);
    expect(await running()).toEqual([]);
    expect(await f.redis.hget(f.keys.job(ep, slow.id), 'lastWorkerId')).toBe('w1');
    expect((await f.engine.take({ endpointId: ep, workerId: 'w2', count: 2, waitMs: 0 })).length).toBe(2);
    expect(await f.redis.hmget(f.keys.job(ep, slow.id), 'workerId', 'lastWorkerId')).toEqual(['w2', null]);
    expect(await low()).toEqual([]);

    // Done: out of `running` and the deadlines, each listed once among the recent ones, output and error kept.
    await f.engine.complete(ep, 'w2', slow.id, { output: 'fine' });
    await f.engine.complete(ep, 'w2', plain.id, { error: 'boom' });
    expect(await running()).toEqual([]);
    for (const id of [slow.id, plain.id])
      expect(await f.redis.zscore(f.keys.global('deadlines'), indexMember(ep, id))).toBeNull();
    expect(await index('recent')).toEqual([slow.id, plain.id, dropped.id]);
    expect(await f.engine.get(ep, slow.id)).toMatchObject({ status: 'COMPLETED', output: 'fine', retries: 1 });
    expect(await f.engine.get(ep, plain.id)).toMatchObject({ status: 'FAILED', error: 'boom', retries: 1 });
  });

  /** The commands Redis ran while `action` ran (the scripts' own included, seen through MONITOR) with a `named` key. */
  async function commandsNaming(named: (arg: string) => boolean, action: () => Promise<void>): Promise<string[][]> {
    const monitor = await f.redis.monitor();
    const fence = `${f.prefix}fence:${randomUUID()}`;
    const seen: string[][] = [];
    let fenced = false;
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args.includes(fence)) fenced = true;
      else if (args.some(named)) seen.push(args);
    });
    try {
      await action();
      // MONITOR reports asynchronously: once it reports a command sent after the action, it has reported the action's.
      await f.redis.exists(fence);
      await pollUntil(async () => fenced, { intervalMs: 1, description: 'MONITOR to report the fence' });
    } finally {
      monitor.disconnect();
    }
    return seen;
  }

  it('never queues a job claimed by the script that records it, and queues it when the claim is undone', async () => {
    const ep = 'lay7';
    const lowPolicy = { executionTimeoutMs: 600_000, ttlMs: 86_400_000, lowPriority: true };
    const queueKeys = [f.keys.endpoint(ep, 'queued'), f.keys.endpoint(ep, 'low'), indexMember(ep, QUEUE_TTL_ID)];
    const aQueueKey = (arg: string) => queueKeys.includes(arg);
    // Without a take, a submission queues its job: the commands are seen.
    const queuedCommands = await commandsNaming(aQueueKey, async () => {
      const queued = await f.engine.submit(submission(ep, { policy: lowPolicy }));
      expect(await f.engine.take({ endpointId: ep, workerId: 'w0', count: 1, waitMs: 0 })).toHaveLength(1);
      await f.engine.complete(ep, 'w0', queued.id, { output: 0 });
    });
    expect(queuedCommands.map(([command]) => command?.toLowerCase())).toEqual(
      expect.arrayContaining(['zadd', 'sadd', 'zrem', 'srem']),
    );

    // With a take parked on this replica, the job is claimed for it as it is recorded: no queue, `low` or queue-ttl
    // command at all, not even to take it out again.
    const take = f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 60_000 });
    await parkedOn(f.engine, 1);
    let claimed = '';
    const claimedCommands = await commandsNaming(aQueueKey, async () => {
      claimed = (await f.engine.submit(submission(ep, { policy: lowPolicy }))).id;
    });
    expect((await take).map((job) => job.id)).toEqual([claimed]);
    expect(claimedCommands).toEqual([]);
    expect(await f.engine.get(ep, claimed)).toMatchObject({ status: 'IN_PROGRESS', workerId: 'w1' });
    expect(await f.redis.smembers(f.keys.endpoint(ep, 'running'))).toEqual([claimed]);
    expect(await f.redis.zrange(f.keys.endpoint(ep, 'recent'), '0', '-1')).toContain(claimed);

    // Handed off to a registered take that is gone: the claim is undone, and the job is queued and in `low` after all.
    const origin = (f.engine as unknown as { wakeups: { origin: string } }).wakeups.origin;
    const entry = `${origin}|gone-take|${f.clock.now() + 60_000}|w2`;
    await f.redis.rpush(f.keys.endpoint(ep, 'takers'), entry);
    const handed = await f.engine.submit(submission(ep, { policy: lowPolicy }));
    await pollUntil(async () => (await f.engine.get(ep, handed.id)).status === 'IN_QUEUE', {
      description: 'the claim to be undone',
    });
    expect(await f.queued(ep)).toEqual([handed.id]);
    expect(await f.redis.smembers(f.keys.endpoint(ep, 'low'))).toEqual([handed.id]);
    expect(await f.engine.take({ endpointId: ep, workerId: 'w3', count: 1, waitMs: 0 })).toEqual([
      { id: handed.id, input: { prompt: 'hello' } },
    ]);
  });

  it('records a job claimed as it is submitted in one write, as a claim from its queue leaves it', async () => {
    const ep = 'lay8';
    const policy = { executionTimeoutMs: 5_000, ttlMs: 60_000, lowPriority: false };
    const job = submission(ep, { extra: { webhookSecret: 's' }, policy });
    const queued = await f.engine.submit(job);
    expect(await f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 0 })).toHaveLength(1);

    // With a take parked on this replica, the job is claimed as it is recorded: its record is written once, never read.
    const take = f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 60_000 });
    await parkedOn(f.engine, 1);
    let claimed = '';
    const jobKeys = f.keys.job(ep, '');
    const commands = await commandsNaming(
      (arg) => arg.startsWith(jobKeys),
      async () => {
        claimed = (await f.engine.submit(job)).id;
      },
    );
    expect(await take).toEqual([{ id: claimed, input: { prompt: 'hello' }, webhookSecret: 's' }]);
    expect(commands.map(([command]) => command?.toLowerCase())).toEqual(['exists', 'hset']);

    // The same record, deadline and expiry as the job claimed from its queue: its own policy, not the defaults.
    const recordOf = (id: string) => f.redis.hgetall(f.keys.job(ep, id));
    expect(await recordOf(claimed)).toEqual(await recordOf(queued.id));
    expect(await recordOf(claimed)).toMatchObject({
      status: 'IN_PROGRESS',
      workerId: 'w1',
      executionTimeoutMs: '5000',
    });
    const now = f.clock.now();
    for (const [index, due] of [['deadlines', now + 5_000] as const, ['expiry', now + 60_000] as const]) {
      const scores = [claimed, queued.id].map((id) => f.redis.zscore(f.keys.global(index), indexMember(ep, id)));
      expect((await Promise.all(scores)).map(Number)).toEqual([due, due]);
    }
  });

  it('takes, completes and retries a job queued by the previous layout (every field written)', async () => {
    const [ep, id, now] = ['lay3', '6f1c1f55-7b0e-4f8e-9a51-0d6e1b2c3d4e-u1', f.clock.now()];
    await f.redis.hset(f.keys.job(ep, id), {
      id, status: 'IN_QUEUE', accountId: 'acct-1', retries: 0, input: '{"prompt":"old"}', extra: '{}',
      executionTimeoutMs: 600_000, lowPriority: '0', sync: '0', retentionMs: 1_800_000, submittedAt: now,
      queuedAt: now, ttlAt: now + 86_400_000,
    }); // prettier-ignore
    await f.redis.zadd(f.keys.endpoint(ep, 'queued'), now, id);
    await f.redis.zadd(f.keys.global('expiry'), now + 86_400_000, indexMember(ep, id));

    const taken = await f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 0 });
    expect(taken).toEqual([{ id, input: { prompt: 'old' } }]);
    await f.engine.complete(ep, 'w1', id, { error: 'boom' });
    expect(await f.engine.get(ep, id)).toMatchObject({ id, status: 'FAILED', error: 'boom', retries: 0 });

    expect(await f.engine.retry(ep, id)).toMatchObject({ id, status: 'IN_QUEUE' });
    const again = await f.engine.take({ endpointId: ep, workerId: 'w2', count: 1, waitMs: 0 });
    expect(again.map((job) => job.id)).toEqual([id]);
    await f.engine.complete(ep, 'w2', id, { output: 'done' });
    expect(await f.engine.get(ep, id)).toMatchObject({ id, status: 'COMPLETED', output: 'done' });
  });
});
