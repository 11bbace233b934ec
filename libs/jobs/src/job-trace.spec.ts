import { activeTraceparent, recordSpans, type SpanRecorder, traceIdOf, withSpan } from '@runplane/observability';
import { bullPrefix } from '@runplane/queue';
import { pollUntil } from '@runplane/testing';
import { parkedOn, startEngine, submission, type EngineFixture } from './__fixtures__/engine';
import { JOB_TRACEPARENT } from './engine';
import type { RedisJobEngine } from './redis-job-engine';

const HOOK = 'https://example.com/hook';

/** The job's trace travels with its record: to takes on any replica, and into its webhook's queue entry. */
describe('RedisJobEngine: trace context of a job', () => {
  let f: EngineFixture;
  let other: RedisJobEngine;
  let recorder: SpanRecorder;
  let n = 0;
  const endpoint = () => `tr${++n}`;
  /** The trace context BullMQ's entry of the job's webhook carries. */
  const webhookTrace = async (jobId: string): Promise<Record<string, string>> => {
    const [key] = (await f.redis.keys(`${bullPrefix(f.prefix)}:webhooks:${jobId}-*`)).filter(
      (k) => !k.includes(':lock'),
    );
    return JSON.parse((await f.redis.hget(key ?? '', 'data')) ?? '{}').trace ?? {};
  };
  const submitInRequest = (job: ReturnType<typeof submission>) =>
    withSpan('POST /run', async () => ({ run: await f.engine.submit(job), request: activeTraceparent() }));

  beforeAll(() => {
    recorder = recordSpans();
    f = startEngine('jobs-trace', { outboxGraceMs: 0 });
    other = f.replica();
  });
  afterAll(async () => {
    await f.close();
    await recorder.stop();
  });
  afterEach(() => expect(f.errors).toEqual([]));

  it("keeps the submission span's traceparent in the record and gives it to the take, never in the job's JSON", async () => {
    const ep = endpoint();
    const { run, request } = await submitInRequest(submission(ep));
    const stored = await f.engine.traceparent(ep, run.id);
    const spans = await recorder.spans();
    const submit = spans.find((span) => span.name === 'job.submit' && span.attributes['runplane.job_id'] === run.id);
    expect(submit).toMatchObject({ traceId: traceIdOf(request), kind: 3 });
    expect(stored).toBe(`00-${submit?.traceId}-${submit?.spanId}-01`);
    const [taken] = await f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 0 });
    expect(taken?.[JOB_TRACEPARENT]).toBe(stored);
    expect(JSON.parse(JSON.stringify(taken))).toEqual({ id: run.id, input: { prompt: 'hello' } });
    expect(await f.engine.traceparent(ep, 'no-such-job')).toBeUndefined();
  });

  it('hands the traceparent to a take parked on another replica (hand-off) and on the same one (hand-over)', async () => {
    for (const taker of [other, f.engine]) {
      const ep = endpoint();
      const take = taker.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 60_000 });
      await parkedOn(taker, 1);
      if (taker === other) {
        const takers = f.keys.endpoint(ep, 'takers');
        await pollUntil(async () => (await f.redis.llen(takers)) === 1, { intervalMs: 1, description: 'registered' });
      }
      const { run } = await submitInRequest(submission(ep));
      const [taken] = await take;
      expect(taken?.id).toBe(run.id);
      expect(taken?.[JOB_TRACEPARENT]).toBe(await f.engine.traceparent(ep, run.id));
    }
  });

  it("queues the webhook in the job's trace, from job-done or from a sweep with no span of the job", async () => {
    const ep = endpoint();
    const { run } = await submitInRequest(submission(ep, { webhook: HOOK }));
    const stored = await f.engine.traceparent(ep, run.id);
    await f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 0 });
    await f.engine.complete(ep, 'w1', run.id, { output: 1 });
    expect(traceIdOf((await webhookTrace(run.id))['traceparent'])).toBe(traceIdOf(stored));

    // Finished outside any span, and inside a span of another trace (a sweep's): the record's trace either way.
    const quiet = await f.engine.submit(submission(ep, { webhook: HOOK }));
    const swept = await f.engine.submit(submission(ep, { webhook: HOOK }));
    await f.engine.cancel(ep, quiet.id);
    await withSpan('sweep', () => f.engine.cancel(ep, swept.id));
    for (const job of [quiet, swept]) {
      const trace = traceIdOf(await f.engine.traceparent(ep, job.id));
      expect(trace).toBeDefined();
      expect(traceIdOf((await webhookTrace(job.id))['traceparent'])).toBe(trace);
    }
  });
});
