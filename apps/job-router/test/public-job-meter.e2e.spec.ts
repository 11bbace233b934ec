import { newId } from '@runplane/db';
import { bullPrefix, normalizePrefix } from '@runplane/queue';
import { PUBLIC_JOB_METER } from '../src/public/public-job-metering';
import type { PublicJobMeter } from '../src/public/public-job-meter';
import { bearer, type JobRouterHarness, raw, startJobRouter } from './harness';

/**
 * The public-job meter on the job-router's own wiring (real engine on a fake clock, Redis, Postgres, the usage queue),
 * driven pass by pass: what it bills, when, and what it never bills.
 */
describe('public-job meter', () => {
  let h: JobRouterHarness;
  let meter: PublicJobMeter;
  let caller: { accountId: string; secret: string };
  const endpoints: Record<string, string> = {};
  const tokens: Record<string, Record<string, string>> = {};

  beforeAll(async () => {
    h = await startJobRouter('jr-public-meter', { JOB_TAKE_WAIT_MS: '200' });
    meter = h.app.get<PublicJobMeter>(PUBLIC_JOB_METER);
    const owner = await h.accountWithKey();
    caller = await h.accountWithKey();
    for (const [model, price] of [
      ['timed', null],
      ['priced', '0.0025'],
    ] as const) {
      const endpointId = await h.endpoint(owner.accountId);
      endpoints[model] = endpointId;
      const workerId = `w-${model}`;
      await h.db.pod.create({
        data: { id: workerId, accountId: owner.accountId, image: 'echo:1', endpointId, costPerHr: '0.72' },
      });
      tokens[model] = raw(await h.workerToken(endpointId, workerId));
      await h.db.publicEndpoint.create({
        data: { id: newId(), name: model, endpointId, accountId: owner.accountId, pricePerRequest: price },
      });
    }
  });
  afterAll(() => h.close());

  const run = async (model: string): Promise<string> => {
    const answer = await h.inject({
      method: 'POST',
      url: `/v2/${model}/run`,
      headers: bearer(caller.secret),
      payload: { input: { n: 1 } },
    });
    return answer.json<{ id: string }>().id;
  };

  /** The worker takes the model's next job and reports it done `ms` (engine clock) later. */
  async function work(model: string, ms: number): Promise<void> {
    const endpointId = endpoints[model] ?? '';
    const headers = tokens[model] ?? {};
    const take = await h.inject({ method: 'GET', url: `/v2/${endpointId}/job-take/w-${model}`, headers });
    const job = take.json<{ id: string }>();
    h.clock.advance(ms);
    const url = `/v2/${endpointId}/job-done/w-${model}/${job.id}`;
    expect((await h.inject({ method: 'POST', url, headers, payload: { output: { ok: true } } })).statusCode).toBe(200);
  }

  const pending = () => h.redis.zcard(`${normalizePrefix(h.config.REDIS_PREFIX)}public-jobs:pending`);

  /** `usage.record` events on the usage queue, by event id. */
  async function published(): Promise<Map<string, Record<string, unknown>>> {
    const events = new Map<string, Record<string, unknown>>();
    for (const key of await h.redis.keys(`${bullPrefix(h.config.REDIS_PREFIX)}:usage:*`)) {
      if ((await h.redis.type(key)) !== 'hash') continue;
      const data = await h.redis.hget(key, 'data');
      if (!data) continue;
      const { payload } = JSON.parse(data) as { payload: Record<string, unknown> };
      events.set(String(payload['eventId']), payload);
    }
    return events;
  }

  it('bills a finished job once, to its caller: execution time and the worker price', async () => {
    const id = await run('timed');
    expect(await meter.meter()).toBe(0);
    await work('timed', 90_000);
    // An unfinished job is looked at again 2 s after the pass that saw it unfinished.
    expect(await meter.meter()).toBe(0);
    expect(await meter.meter(new Date(Date.now() + 3_000))).toBe(1);
    expect((await published()).get(`job.${id}`)).toMatchObject({
      type: 'job.billed',
      accountId: caller.accountId,
      jobId: id,
      model: 'timed',
      executionMs: 90_000,
      costPerHr: '0.720000',
      pricePerRequest: null,
    });
    expect(await meter.meter(new Date(Date.now() + 3_000))).toBe(0);
  });

  it('bills the per-request price when the model has one', async () => {
    const id = await run('priced');
    await work('priced', 5_000);
    expect(await meter.meter()).toBe(1);
    expect((await published()).get(`job.${id}`)).toMatchObject({
      accountId: caller.accountId,
      model: 'priced',
      executionMs: 5_000,
      costPerHr: '0',
      pricePerRequest: '0.002500',
    });
  });

  it('never bills a job no worker took, and forgets it', async () => {
    const id = await run('timed');
    const cancel = await h.inject({ method: 'POST', url: `/v2/timed/cancel/${id}`, headers: bearer(caller.secret) });
    expect(cancel.json()).toEqual({ id, status: 'CANCELLED' });
    expect(await pending()).toBe(1);
    expect(await meter.meter()).toBe(0);
    expect((await published()).has(`job.${id}`)).toBe(false);
    expect(await pending()).toBe(0);
  });
});
