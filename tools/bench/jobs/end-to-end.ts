// End to end: jobs submitted until all are completed by 50 workers, Runplane's protocol workers against BullMQ's.
import { createQueue, type Redis } from '@runplane/queue';
import { cpuCeiling, measureCpu, perOperation, sumCpu } from '../cpu-meter';
import { interleave, sliceCount } from '../interleave';
import { ms, type Row } from '../results';
import type { Baselines } from './accept';
import { type MinimalServer, minimalRunTarget, rawWorkers } from './minimal';
import { call, catalog, INPUT, type Router, type RunTarget, runplaneRunTarget, startWorkers } from './router';

const E2E_WORKERS = 50;
const SLICE_JOBS = 1250;
const runBody = JSON.stringify({ input: INPUT });

/** Submits `total` jobs from `concurrency` loops. */
async function submitAll(total: number, concurrency: number, submit: () => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next += 1;
        await submit();
      }
    }),
  );
}

/** Submits `jobs` jobs to a POST /run from 50 loops; throws on any answer but 200. */
function submitOverHttp(jobs: number, target: RunTarget): Promise<void> {
  return submitAll(jobs, E2E_WORKERS, async () => {
    const response = await call(target.url, { method: 'POST', headers: target.headers, body: runBody });
    if (response.status !== 200) throw new Error(`${target.url} answered ${response.status}: ${response.text}`);
  });
}

async function rawEndToEnd(redis: Redis, rawPrefix: string, total: number): Promise<number> {
  const queue = createQueue(catalog, 'bench-jobs', { redis, prefix: `${rawPrefix}e2e:` });
  const { worker, completed } = rawWorkers(redis, `${rawPrefix}e2e:`, E2E_WORKERS);
  const start = process.hrtime.bigint();
  await submitAll(total, E2E_WORKERS, () => queue.add('bench.job', { input: INPUT }));
  await completed(total);
  const perSecond = (total * 1000) / ms(start);
  await worker.close();
  await queue.close();
  return perSecond;
}

/**
 * One side of the comparison: a server (`pid`, for its CPU) with 50 workers started once, then run in slices of
 * `jobs` jobs, each timed from its first submission to its last completion (milliseconds).
 */
interface EndToEndSide {
  pid: number;
  slice(jobs: number): Promise<number>;
  close(): Promise<void>;
}

/** Slices of jobs submitted to `target`, each timed from its first submission until `completed` counts all so far. */
function timedSlices(target: RunTarget, completed: (count: number) => Promise<void>): EndToEndSide['slice'] {
  let submitted = 0;
  return async (jobs) => {
    const start = process.hrtime.bigint();
    submitted += jobs;
    await submitOverHttp(jobs, target);
    await completed(submitted);
    return ms(start);
  };
}

/** The minimal pipeline: HTTP /run on the minimal server, 50 raw BullMQ workers completing the jobs. */
function minimalSide(server: MinimalServer, redis: Redis): EndToEndSide {
  const { worker, completed } = rawWorkers(redis, server.prefix, E2E_WORKERS);
  return { pid: server.pid, slice: timedSlices(minimalRunTarget(server), completed), close: () => worker.close() };
}

/** Runplane: HTTP /run on the job-router, 50 protocol workers (job-take, job-done) completing the jobs. */
async function runplaneSide(router: Router): Promise<EndToEndSide> {
  const endpointId = await router.endpoint();
  const stop = new AbortController();
  const workers = await startWorkers(router, endpointId, E2E_WORKERS, stop.signal);
  const completed = async (count: number) => {
    while ((await router.engine.counts(endpointId)).completed < count)
      await new Promise((resolve) => setTimeout(resolve, 5));
  };
  return {
    pid: router.pid,
    slice: timedSlices(runplaneRunTarget(router, endpointId), completed),
    async close() {
      stop.abort();
      await Promise.all(workers);
    },
  };
}

/**
 * The minimal pipeline and Runplane in alternating slices of 1,250 jobs (interleave.ts), `jobs.total` each side, so
 * that both meet the same moments of a drifting machine, after `jobs.warmUp` unmeasured jobs each: each side's jobs
 * per second over its slices' summed time, and its CPU summed.
 */
async function endToEndAgainstMinimal(router: Router, redis: Redis, jobs: EndToEndJobs, server: MinimalServer) {
  const slices = sliceCount(jobs.total, SLICE_JOBS);
  const perSlice = Math.ceil(jobs.total / slices);
  const minimal = minimalSide(server, redis);
  const runplane = await runplaneSide(router);
  try {
    // Unmeasured: each side runs warm, not as its first jobs found it (see EndToEndJobs.warmUp).
    await minimal.slice(jobs.warmUp);
    await runplane.slice(jobs.warmUp);
    const slice = (side: EndToEndSide) => () => measureCpu(redis, side.pid, () => side.slice(perSlice));
    const timed = await interleave(slices, slice(minimal), slice(runplane));
    const summed = (runs: typeof timed.runplane) => ({
      jobs: perSlice * runs.length,
      perSecond: (perSlice * runs.length * 1000) / runs.reduce((sum, run) => sum + run.result, 0),
      cpu: sumCpu(runs.map((run) => run.cpu)),
    });
    return { minimal: summed(timed.baseline), runplane: summed(timed.runplane) };
  } finally {
    await Promise.all([minimal.close(), runplane.close()]);
  }
}

/** How many jobs each side of the end-to-end comparison runs. */
export interface EndToEndJobs {
  /** Measured, in slices (BENCH_E2E_JOBS). */
  total: number;
  /**
   * Run first, unmeasured (BENCH_E2E_WARM_UP_JOBS). The minimal pipeline needs between 10,000 and 20,000 jobs to reach
   * its steady pace (its server's CPU per job halves), so a short warm-up flatters Runplane.
   */
  warmUp: number;
}

/**
 * Jobs per second from the first submission to the last completion, `jobs.total` each side: Runplane against the
 * minimal pipeline (HTTP /run + 50 raw BullMQ workers; target ≥ 0.5×) and raw BullMQ add + process as the floor.
 */
export async function benchEndToEnd(
  router: Router,
  redis: Redis,
  jobs: EndToEndJobs,
  baselines: Baselines,
): Promise<Row[]> {
  const total = jobs.total;
  const raw = await measureCpu(redis, undefined, () => rawEndToEnd(redis, baselines.rawPrefix, total));
  const { minimal, runplane } = await endToEndAgainstMinimal(router, redis, jobs, baselines.minimal);
  const metric = `end to end, ${runplane.jobs} jobs, ${E2E_WORKERS} workers`;
  const row = { runplane: runplane.perSecond, unit: 'jobs/s' };
  const cpu = {
    runplane: perOperation(runplane.cpu, runplane.jobs),
    ceiling: cpuCeiling(runplane.cpu, runplane.jobs),
  };
  return [
    {
      metric: `${metric} vs minimal pipeline`,
      ...row,
      baseline: minimal.perSecond,
      target: 'ratio>=0.5',
      pass: runplane.perSecond / minimal.perSecond >= 0.5,
      cpu: { ...cpu, baseline: perOperation(minimal.cpu, minimal.jobs) },
    },
    {
      metric: `${metric} vs raw BullMQ (floor)`,
      ...row,
      baseline: raw.result,
      target: '-',
      pass: true,
      cpu: { ...cpu, baseline: perOperation(raw.cpu, total) },
    },
  ];
}
