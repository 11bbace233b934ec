// End to end: jobs submitted until all are completed by 50 workers, Runplane's protocol workers against BullMQ's.
import { createQueue, type Redis } from '@runplane/queue';
import { type CpuSpent, cpuCeiling, measureCpu, perOperation, sumCpu } from '../cpu-meter';
import { interleave, sliceCount } from '../interleave';
import { ms, type Row } from '../results';
import type { Baselines } from './accept';
import { type MinimalServer, minimalRunTarget, type RawWorkerShape, rawWorkers } from './minimal';
import { call, catalog, INPUT, type Router, type RunTarget, runplaneRunTarget, startWorkers } from './router';

const E2E_WORKERS = 50;
const SLICE_JOBS = 1250;

/**
 * The minimal pipeline's workers, shaped as Runplane's: 50 workers, each taking one job at a time (as each protocol
 * worker runs one job at a time on its own connection).
 */
const TWIN_WORKERS: RawWorkerShape = { workers: E2E_WORKERS, concurrency: 1 };
/**
 * One BullMQ worker running 50 jobs at once: all 50 share one blocking connection and BullMQ's own batching, a shape
 * that no set of 50 separate workers has. Printed beside the twin, and used by the raw BullMQ floor.
 */
const ONE_WORKER: RawWorkerShape = { workers: 1, concurrency: E2E_WORKERS };
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
  const workers = rawWorkers(redis, `${rawPrefix}e2e:`, ONE_WORKER);
  const start = process.hrtime.bigint();
  await submitAll(total, E2E_WORKERS, () => queue.add('bench.job', { input: INPUT }));
  await workers.completed(total);
  const perSecond = (total * 1000) / ms(start);
  await workers.close();
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

/** The minimal pipeline: HTTP /run on the minimal server, raw BullMQ workers of `shape` completing the jobs. */
function minimalSide(server: MinimalServer, redis: Redis, shape: RawWorkerShape): EndToEndSide {
  const workers = rawWorkers(redis, server.prefix, shape);
  return { pid: server.pid, slice: timedSlices(minimalRunTarget(server), workers.completed), close: workers.close };
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

/** One side's measured slices: their jobs, jobs per second over their summed time, and their CPU summed. */
interface Measured {
  jobs: number;
  perSecond: number;
  cpu: CpuSpent;
}

/** Both sides of one comparison. */
interface Compared {
  baseline: Measured;
  runplane: Measured;
}

/**
 * A minimal pipeline and Runplane (already warm) in alternating slices of 1,250 jobs (interleave.ts), `jobs.total`
 * each side, so that both meet the same moments of a drifting machine, after `jobs.warmUp` unmeasured jobs of the
 * minimal pipeline.
 */
async function compare(
  minimal: EndToEndSide,
  runplane: EndToEndSide,
  redis: Redis,
  jobs: EndToEndJobs,
): Promise<Compared> {
  const slices = sliceCount(jobs.total, SLICE_JOBS);
  const perSlice = Math.ceil(jobs.total / slices);
  // Unmeasured: the minimal pipeline runs warm, not as its first jobs found it (see EndToEndJobs.warmUp).
  await minimal.slice(jobs.warmUp);
  const slice = (side: EndToEndSide) => () => measureCpu(redis, side.pid, () => side.slice(perSlice));
  const timed = await interleave(slices, slice(minimal), slice(runplane));
  const summed = (runs: typeof timed.runplane): Measured => ({
    jobs: perSlice * runs.length,
    perSecond: (perSlice * runs.length * 1000) / runs.reduce((sum, run) => sum + run.result, 0),
    cpu: sumCpu(runs.map((run) => run.cpu)),
  });
  return { baseline: summed(timed.baseline), runplane: summed(timed.runplane) };
}

/**
 * Runplane against the minimal pipeline with its twin workers (TWIN_WORKERS), then against it with ONE_WORKER, each
 * side after `jobs.warmUp` unmeasured jobs (Runplane's once, before both).
 */
async function endToEndAgainstMinimal(router: Router, redis: Redis, jobs: EndToEndJobs, server: MinimalServer) {
  const runplane = await runplaneSide(router);
  try {
    await runplane.slice(jobs.warmUp);
    const against = async (shape: RawWorkerShape): Promise<Compared> => {
      const minimal = minimalSide(server, redis, shape);
      try {
        return await compare(minimal, runplane, redis, jobs);
      } finally {
        await minimal.close();
      }
    };
    return { twin: await against(TWIN_WORKERS), oneWorker: await against(ONE_WORKER) };
  } finally {
    await runplane.close();
  }
}

/** How many jobs each side of the end-to-end comparison runs. */
export interface EndToEndJobs {
  /**
   * Measured, in alternating slices of about 1,250 (BENCH_E2E_JOBS). The more slices, the less one slow moment of a
   * shared machine moves the ratio: on one machine the same code gave 0.49-0.62× in 13 runs of 5,000 jobs (4 slices
   * each side) and 0.49-0.58× in 12 runs of 20,000 (16), 10 of them within 0.51-0.58×.
   */
  total: number;
  /**
   * Run first, unmeasured (BENCH_E2E_WARM_UP_JOBS). The minimal pipeline needs between 10,000 and 20,000 jobs to reach
   * its steady pace (its server's CPU per job halves), so a short warm-up flatters Runplane.
   */
  warmUp: number;
}

/** Jobs of each side when the environment does not say (see JobsBenchOptions). */
export const END_TO_END_JOBS: EndToEndJobs = { total: 20_000, warmUp: 25_000 };

/** The row of one comparison, with both sides' CPU per job and Runplane's ceiling. */
function comparedRow(metric: string, { baseline, runplane }: Compared, target: string, pass: boolean): Row {
  const cpu = {
    baseline: perOperation(baseline.cpu, baseline.jobs),
    runplane: perOperation(runplane.cpu, runplane.jobs),
    ceiling: cpuCeiling(runplane.cpu, runplane.jobs),
  };
  return { metric, runplane: runplane.perSecond, baseline: baseline.perSecond, unit: 'jobs/s', target, pass, cpu };
}

/**
 * Jobs per second from the first submission to the last completion, `jobs.total` each side: Runplane against the
 * minimal pipeline (HTTP /run + 50 raw BullMQ workers taking one job at a time; target ≥ 0.5×), against the same
 * pipeline with one BullMQ worker running 50 jobs at once (no target), and against raw BullMQ add + process (the floor).
 */
export async function benchEndToEnd(
  router: Router,
  redis: Redis,
  jobs: EndToEndJobs,
  baselines: Baselines,
): Promise<Row[]> {
  const total = jobs.total;
  const raw = await measureCpu(redis, undefined, () => rawEndToEnd(redis, baselines.rawPrefix, total));
  const { twin, oneWorker } = await endToEndAgainstMinimal(router, redis, jobs, baselines.minimal);
  const metric = `end to end, ${twin.runplane.jobs} jobs, ${E2E_WORKERS} workers`;
  const twinRatio = twin.runplane.perSecond / twin.baseline.perSecond;
  const floor: Compared = { baseline: { jobs: total, perSecond: raw.result, cpu: raw.cpu }, runplane: twin.runplane };
  return [
    comparedRow(`${metric} vs minimal pipeline`, twin, 'ratio>=0.5', twinRatio >= 0.5),
    comparedRow(`${metric} vs minimal pipeline, one BullMQ worker running 50`, oneWorker, '-', true),
    comparedRow(`${metric} vs raw BullMQ (floor)`, floor, '-', true),
  ];
}
