// End to end: jobs submitted until all are completed by 50 workers, Runplane's protocol workers against BullMQ's.
import { createQueue, type Redis } from '@runplane/queue';
import { cpuCeiling, measureCpu, perOperation } from '../cpu-meter';
import { ms, type Row } from '../results';
import type { Baselines } from './accept';
import { minimalEndToEnd, rawWorkers } from './minimal';
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
  const perSecond = (total * 1000) / ms(start);
  stop.abort();
  await Promise.all(workers);
  return perSecond;
}

/**
 * Jobs per second from the first submission to the last completion, `total` jobs each side: Runplane against the
 * minimal pipeline (HTTP /run + 50 raw BullMQ workers; target ≥ 0.5×) and raw BullMQ add + process as the floor.
 */
export async function benchEndToEnd(router: Router, redis: Redis, total: number, baselines: Baselines): Promise<Row[]> {
  const raw = await measureCpu(redis, undefined, () => rawEndToEnd(redis, baselines.rawPrefix, total));
  const minimal = await measureCpu(redis, baselines.minimal.pid, () =>
    minimalEndToEnd(baselines.minimal, total, E2E_WORKERS, redis),
  );
  const runplane = await measureCpu(redis, router.pid, () => runplaneEndToEnd(router, total));
  const metric = `end to end, ${total} jobs, ${E2E_WORKERS} workers`;
  const cpu = {
    baseline: perOperation(raw.cpu, total),
    runplane: perOperation(runplane.cpu, total),
    ceiling: cpuCeiling(runplane.cpu, total),
  };
  const row = { runplane: runplane.result, unit: 'jobs/s' };
  return [
    {
      metric: `${metric} vs minimal pipeline`,
      ...row,
      baseline: minimal.result,
      target: 'ratio>=0.5',
      pass: runplane.result / minimal.result >= 0.5,
      cpu: { ...cpu, baseline: perOperation(minimal.cpu, total) },
    },
    { metric: `${metric} vs raw BullMQ (floor)`, ...row, baseline: raw.result, target: '-', pass: true, cpu },
  ];
}
