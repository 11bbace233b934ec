import { pollUntil } from '@runplane/testing';
import { type Admission, SubmissionRefused } from './admission';
import { SCRIPTS } from './engine-scripts';
import type { RedisJobEngine } from './redis-job-engine';
import { parkedOn, startEngine, submission, type EngineFixture } from './__fixtures__/engine';

/**
 * A submission counted against its admission's counters in the script that records it: admitted, it is recorded as
 * any job; refused, nothing is recorded, dispatched or announced, and the counters say what a refused request leaves.
 */
describe('RedisJobEngine: submissions counted in their record script', () => {
  let f: EngineFixture;
  let other: RedisJobEngine;
  let n = 0;
  const endpoint = () => `ep${++n}`;
  /** The counters of one endpoint: two requests per 10 s window, one at a time, held at most 60 s. */
  const admissionOf = (ep: string, overrides: Partial<Admission> = {}): Admission => ({
    rateKey: `${f.prefix}limits:rate:${ep}:run`,
    busyKey: `${f.prefix}limits:busy:${ep}:run`,
    windowSeconds: 10,
    holdSeconds: 60,
    maxRequests: 2,
    maxConcurrent: 1,
    givenBack: 0,
    ...overrides,
  });
  const counters = async (ep: string) => {
    const { rateKey, busyKey } = admissionOf(ep);
    const [rate, busy, ratePttl, busyPttl] = await Promise.all([
      f.redis.get(rateKey),
      f.redis.get(busyKey),
      f.redis.pttl(rateKey),
      f.redis.pttl(busyKey),
    ]);
    return { rate: Number(rate), busy: Number(busy), ratePttl, busyPttl };
  };
  const refusalOf = (submitting: Promise<unknown>) =>
    submitting.then(
      () => undefined,
      (error: unknown) => {
        expect(error).toBeInstanceOf(SubmissionRefused);
        return (error as SubmissionRefused).refusal;
      },
    );

  beforeAll(() => {
    f = startEngine('jobs-admission');
    other = f.replica();
  });
  afterAll(() => f.close());
  afterEach(() => expect(f.errors).toEqual([]));

  it('records an admitted job and counts the request and its slot, each counter with its window', async () => {
    const ep = endpoint();
    const run = await f.engine.submit(submission(ep, { admission: admissionOf(ep) }));
    expect(await f.engine.get(ep, run.id)).toMatchObject({ status: 'IN_QUEUE' });
    const counted = await counters(ep);
    expect(counted).toMatchObject({ rate: 1, busy: 1 });
    expect(counted.ratePttl).toBeGreaterThan(9_000);
    expect(counted.ratePttl).toBeLessThanOrEqual(10_000);
    expect(counted.busyPttl).toBeGreaterThan(59_000);
  });

  it('refuses a request over the rate: nothing recorded or announced, the request counted, no slot taken', async () => {
    const ep = endpoint();
    const submitted: string[] = [];
    f.engine.onSubmitted((endpointId) => submitted.push(endpointId));
    const first = await f.engine.submit(submission(ep, { admission: admissionOf(ep, { maxConcurrent: 5 }) }));
    await f.engine.submit(submission(ep, { admission: admissionOf(ep, { maxConcurrent: 5 }) }));
    const refusal = await refusalOf(
      f.engine.submit(submission(ep, { admission: admissionOf(ep, { maxConcurrent: 5 }) })),
    );
    expect(refusal).toEqual({ counter: 'rate', consumed: 3, msLeft: expect.any(Number) });
    expect(refusal && 'msLeft' in refusal && refusal.msLeft).toBeGreaterThan(9_000);
    expect(await f.queued(ep)).toHaveLength(2);
    expect((await f.queued(ep))[0]).toBe(first.id);
    expect(await f.engine.counts(ep)).toMatchObject({ inQueue: 2 });
    expect(await counters(ep)).toMatchObject({ rate: 3, busy: 2 });
    expect(submitted.filter((id) => id === ep)).toHaveLength(2);
  });

  it('refuses a request over the concurrency and gives its slot back in the same script', async () => {
    const ep = endpoint();
    await f.engine.submit(submission(ep, { admission: admissionOf(ep) }));
    const refusal = await refusalOf(f.engine.submit(submission(ep, { admission: admissionOf(ep) })));
    expect(refusal).toEqual({ counter: 'concurrency', held: 1 });
    expect(await f.queued(ep)).toHaveLength(1);
    // The refused request stays counted in the window, as one refused by the limiter does; its slot does not.
    expect(await counters(ep)).toMatchObject({ rate: 2, busy: 1 });
  });

  it('counts slots given back off first, and counts no rate when the window is 0 (a request counted already)', async () => {
    const ep = endpoint();
    await f.engine.submit(submission(ep, { admission: admissionOf(ep) }));
    // The first request's slot comes back with the next submission, which then finds it free.
    await f.engine.submit(submission(ep, { admission: admissionOf(ep, { givenBack: 1 }) }));
    expect(await counters(ep)).toMatchObject({ rate: 2, busy: 1 });
    await f.engine.submit(submission(ep, { admission: admissionOf(ep, { givenBack: 1, windowSeconds: 0 }) }));
    expect(await counters(ep)).toMatchObject({ rate: 2, busy: 1 });
    expect(await f.queued(ep)).toHaveLength(3);
  });

  it('refuses an admission with an Idempotency-Key, whose repeat would not count it', async () => {
    const ep = endpoint();
    await expect(
      f.engine.submit(submission(ep, { admission: admissionOf(ep), idempotencyKey: 'k-1' })),
    ).rejects.toThrow(/counted by its caller/);
    expect(await f.queued(ep)).toEqual([]);
    expect(await counters(ep)).toMatchObject({ rate: 0, busy: 0 });
  });

  it('hands a refused job to no take: a take parked on this replica keeps waiting and gets the next admitted job', async () => {
    const ep = endpoint();
    const take = f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 60_000 });
    await parkedOn(f.engine, 1);
    const records = jest.spyOn(SCRIPTS.submit, 'run');
    const refused = await refusalOf(
      f.engine.submit(submission(ep, { admission: admissionOf(ep, { maxRequests: 0 }) })),
    );
    expect(refused).toMatchObject({ counter: 'rate' });
    // The take was reserved for the job (the script was asked to claim it for w1) and is waiting again.
    expect(records.mock.calls[0]?.[1]).toMatchObject({ claimFor: 'w1' });
    records.mockRestore();
    await parkedOn(f.engine, 1);
    expect(await f.queued(ep)).toEqual([]);
    const run = await f.engine.submit(submission(ep, { admission: admissionOf(ep, { maxRequests: 5 }) }));
    expect((await take).map((job) => job.id)).toEqual([run.id]);
  });

  it('announces a refused job to no other replica: a take parked there is not woken', async () => {
    const ep = endpoint();
    const looks = jest.spyOn(SCRIPTS.take, 'run');
    const take = other.take({ endpointId: ep, workerId: 'w2', count: 1, waitMs: 60_000 });
    await parkedOn(other, 1);
    await pollUntil(async () => (await f.redis.llen(f.keys.endpoint(ep, 'takers'))) === 1, {
      description: 'the take to be registered',
    });
    const looked = looks.mock.calls.length;
    await refusalOf(f.engine.submit(submission(ep, { admission: admissionOf(ep, { maxRequests: 0 }) })));
    // Its registration is still there for the next job, which it is handed (claimed by the record script).
    expect(await f.redis.llen(f.keys.endpoint(ep, 'takers'))).toBe(1);
    const run = await f.engine.submit(submission(ep, { admission: admissionOf(ep, { maxRequests: 5 }) }));
    expect((await take).map((job) => job.id)).toEqual([run.id]);
    expect(looks.mock.calls.length).toBe(looked);
    looks.mockRestore();
  });
});
