// End to end: jobs submitted until all are completed by 50 workers, Runplane's protocol workers against BullMQ's.
import { createQueue, type Redis } from '@runplane/queue';
import { cpuCeiling, measureCpu, perOperation, sumCpu } from '../cpu-meter';
import { interleave, sliceCount } from '../interleave';
import { ms, type Row } from '../results';
import type { Baselines } from './accept';
import { type MinimalServer, minimalEndToEnd, rawWorkers } from './minimal';
import { call, catalog, INPUT, type Router, startWorkers } from './router';

const E2E_WORKERS = 50;

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

async function rawEndToEnd(redis: Redis, rawPrefix: string, total: number): Promise<number> {
  const queue = createQueue(catalog, 'bench-jobs', { redis, prefix: `${rawPrefix}e2e:` });
  const { worker, finished } = rawWorkers(redis, `${rawPrefix}e2e:`, E2E_WORKERS, total);
  const start = process.hrtime.bigint();
  await submitAll(total, E2E_WORKERS, () => queue.add('bench.job', { input: INPUT }));
  await finished;
  const perSecond = (total * 1000) / ms(start);
  await worker.close();
  await queue.close();
  return perSecond;
}

/** Runplane's protocol workers completing `total` jobs submitted over HTTP; milliseconds, first submission to last completion. */
async function runplaneEndToEnd(router: Router, total: number): Promise<number> {
  const endpointId = await router.endpoint();
  const stop = new AbortController();
  const workers = await startWorkers(router, endpointId, E2E_WORKERS, stop.signal);
  const headers = { authorization: `Bearer ${router.secret}`, 'content-type': 'application/json' };
  const body = JSON.stringify({ input: INPUT });
  const start = process.hrtime.bigint();
  await submitAll(total, E2E_WORKERS, async () => {
    const response = await call(`${router.base}/v2/${endpointId}/run`, { method: 'POST', headers, body });
    if (response.status !== 200) throw new Error(`/run answered ${response.status}: ${response.text}`);
  });
  while ((await router.engine.counts(endpointId)).completed < total)
    await new Promise((resolve) => setTimeout(resolve, 5));
  const elapsed = ms(start);
  stop.abort();
  await Promise.all(workers);
  return elapsed;
}

const SLICE_JOBS = 1250;

/**
 * The minimal pipeline and Runplane in alternating slices of 1,250 jobs (interleave.ts), `total` jobs each side, so
 * that both meet the same moments of a drifting machine: each side's jobs per second over its slices' summed time,
 * and its CPU summed.
 */
async function endToEndAgainstMinimal(router: Router, redis: Redis, total: number, minimal: MinimalServer) {
  const slices = sliceCount(total, SLICE_JOBS);
  const perSlice = Math.ceil(total / slices);
  const timed = await interleave(
    slices,
    () => measureCpu(redis, minimal.pid, () => minimalEndToEnd(minimal, perSlice, E2E_WORKERS, redis)),
    () => measureCpu(redis, router.pid, () => runplaneEndToEnd(router, perSlice)),
  );
  const side = (runs: typeof timed.runplane) => ({
    jobs: perSlice * runs.length,
    perSecond: (perSlice * runs.length * 1000) / runs.reduce((sum, run) => sum + run.result, 0),
    cpu: sumCpu(runs.map((run) => run.cpu)),
  });
  return { minimal: side(timed.baseline), runplane: side(timed.runplane) };
}

/**
 * Jobs per second from the first submission to the last completion, `total` jobs each side: Runplane against the
 * minimal pipeline (HTTP /run + 50 raw BullMQ workers; target ≥ 0.5×) and raw BullMQ add + process as the floor.
 */
export async function benchEndToEnd(router: Router, redis: Redis, total: number, baselines: Baselines): Promise<Row[]> {
  const raw = await measureCpu(redis, undefined, () => rawEndToEnd(redis, baselines.rawPrefix, total));
  const { minimal, runplane } = await endToEndAgainstMinimal(router, redis, total, baselines.minimal);
  const metric = `end to end, ${runplane.jobs} jobs, ${E2E_WORKERS} workers`;
  const row = { runplane: runplane.perSecond, unit: 'jobs/s' };
  return [
    {
      metric: `${metric} vs minimal pipeline`,
      ...row,
      baseline: minimal.perSecond,
      target: 'ratio>=0.5',
      pass: runplane.perSecond / minimal.perSecond >= 0.5,
      cpu: {
        baseline: perOperation(minimal.cpu, minimal.jobs),
        runplane: perOperation(runplane.cpu, runplane.jobs),
        ceiling: cpuCeiling(runplane.cpu, runplane.jobs),
      },
    },
    {
      metric: `${metric} vs raw BullMQ (floor)`,
      ...row,
      baseline: raw.result,
      target: '-',
      pass: true,
      cpu: {
        baseline: perOperation(raw.cpu, total),
        runplane: perOperation(runplane.cpu, runplane.jobs),
        ceiling: cpuCeiling(runplane.cpu, runplane.jobs),
      },
    },
  ];
}
