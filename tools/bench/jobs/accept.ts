// Accept throughput: POST /v2/{id}/run against raw BullMQ's queue.add on the same Redis, and the router's HTTP floor.
import autocannon from 'autocannon';
import { createQueue, type Redis } from '@runplane/queue';
import { cpuCeiling, type CpuSpent, measureCpu, perOperation, sumCpu } from '../cpu-meter';
import { interleave, sliceCount } from '../interleave';
import { ms, percentile, percentileRows, type Row } from '../results';
import { type MinimalServer, minimalRunTarget } from './minimal';
import { catalog, INPUT, type JobsBenchOptions, type Router, type RunTarget, runplaneRunTarget } from './router';

/** Runs `count` concurrent loops of `op` for `durationMs`; throughput and latency percentiles. */
async function closedLoop(op: () => Promise<unknown>, count: number, durationMs: number) {
  const latencies: number[] = [];
  const deadline = Date.now() + durationMs;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: count }, async () => {
      while (Date.now() < deadline) {
        const start = process.hrtime.bigint();
        await op();
        latencies.push(ms(start));
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const perSecond = (latencies.length * 1000) / ms(started);
  return { count: latencies.length, perSecond, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
}

async function rawAccept(redis: Redis, rawPrefix: string, options: JobsBenchOptions) {
  const queue = createQueue(catalog, 'bench-jobs', { redis, prefix: rawPrefix });
  const add = () => queue.add('bench.job', { input: INPUT });
  try {
    return await measureCpu(redis, undefined, () =>
      closedLoop(add, options.connections, options.durationSeconds * 1000),
    );
  } finally {
    await queue.close();
  }
}

/** One slice of /run load (autocannon's unmerged result: `merge` adds the slices up), with each party's CPU. */
function acceptSlice(target: RunTarget, redis: Redis, seconds: number, connections: number) {
  return measureCpu(redis, target.pid, () =>
    autocannon({
      url: target.url,
      method: 'POST',
      duration: seconds,
      connections,
      headers: target.headers,
      body: JSON.stringify({ input: INPUT }),
      skipAggregateResult: true,
    }),
  );
}

/** autocannon's merge of results run with `skipAggregateResult` (part of its API, missing from its type declarations). */
const aggregateResult = (
  autocannon as unknown as {
    aggregateResult(results: autocannon.Result[], options: { url: string }): autocannon.Result;
  }
).aggregateResult;

/** One side's slices as one: throughput over their summed time, latency over all their requests, CPU summed. */
function merge(url: string, slices: { result: autocannon.Result; cpu: CpuSpent }[]) {
  const merged = aggregateResult(
    slices.map((slice) => slice.result),
    { url },
  );
  const seconds = slices.reduce((total, slice) => total + slice.result.duration, 0);
  return {
    requests: merged.requests.total,
    perSecond: merged.requests.total / seconds,
    latency: merged.latency,
    non2xx: merged.non2xx,
    cpu: sumCpu(slices.map((slice) => slice.cpu)),
  };
}

type Accepted = ReturnType<typeof merge>;

const SLICE_SECONDS = 1;

/**
 * The minimal pipeline's and Runplane's /run in alternating 1-second slices (interleave.ts), about `durationSeconds`
 * each side, so that both meet the same moments of a drifting machine, after an unmeasured second each.
 */
async function acceptAgainstMinimal(router: Router, redis: Redis, options: JobsBenchOptions, minimal: MinimalServer) {
  const endpointId = await router.endpoint();
  const runplane = runplaneRunTarget(router, endpointId);
  const baseline = minimalRunTarget(minimal);
  // Unmeasured: both servers' code is compiled and their connections open before the first measured slice.
  for (const target of [baseline, runplane]) await acceptSlice(target, redis, 1, options.connections);
  const slice = (target: RunTarget) => () => acceptSlice(target, redis, SLICE_SECONDS, options.connections);
  const slices = await interleave(sliceCount(options.durationSeconds, SLICE_SECONDS), slice(baseline), slice(runplane));
  return { minimal: merge(baseline.url, slices.baseline), runplane: merge(runplane.url, slices.runplane) };
}

/** The baselines a suite compares with: raw BullMQ on `rawPrefix` (the physical floor) and the minimal pipeline. */
export interface Baselines {
  rawPrefix: string;
  minimal: MinimalServer;
}

/** µs of one party's CPU per operation. */
const usPerOp = (cpuMs: number, operations: number): number => (cpuMs * 1000) / Math.max(1, operations);

/** Runplane's /run against the minimal pipeline: throughput (≥ 0.6×) and the server's CPU per /run (≤ 2×). */
function minimalRows(runplane: Accepted, minimal: Accepted): Row[] {
  const routerUs = usPerOp(runplane.cpu.router, runplane.requests);
  const minimalUs = usPerOp(minimal.cpu.router, minimal.requests);
  return [
    {
      metric: '/run accept vs minimal pipeline',
      runplane: runplane.perSecond,
      baseline: minimal.perSecond,
      unit: 'req/s',
      target: 'ratio>=0.6',
      pass: runplane.perSecond / minimal.perSecond >= 0.6,
      cpu: {
        baseline: perOperation(minimal.cpu, minimal.requests),
        runplane: perOperation(runplane.cpu, runplane.requests),
        ceiling: cpuCeiling(runplane.cpu, runplane.requests),
      },
    },
    {
      metric: 'server CPU per /run vs minimal server',
      runplane: routerUs,
      baseline: minimalUs,
      unit: 'µs/op',
      target: 'ratio<=2',
      pass: routerUs <= 2 * minimalUs,
    },
  ];
}

/**
 * /run accept throughput and latency against the minimal pipeline (target ≥ 0.6×, and the job-router's CPU per /run
 * ≤ 2× the minimal server's), raw BullMQ as the physical floor, and GET /healthz on the same router as the HTTP floor.
 */
export async function benchAccept(
  router: Router,
  redis: Redis,
  options: JobsBenchOptions,
  baselines: Baselines,
): Promise<Row[]> {
  const raw = await rawAccept(redis, baselines.rawPrefix, options);
  const { minimal, runplane } = await acceptAgainstMinimal(router, redis, options, baselines.minimal);
  // The floor of any HTTP answer on this machine: the same router and load generator, a route that does nothing.
  const floor = await measureCpu(redis, router.pid, () =>
    autocannon({ url: `${router.base}/healthz`, duration: options.durationSeconds, connections: options.connections }),
  );
  if (runplane.non2xx > 0) console.warn(`/run answered ${runplane.non2xx} non-2xx responses`);
  if (minimal.non2xx > 0) console.warn(`minimal /run answered ${minimal.non2xx} non-2xx responses`);
  const cpu = {
    baseline: perOperation(raw.cpu, raw.result.count),
    runplane: perOperation(runplane.cpu, runplane.requests),
    ceiling: cpuCeiling(runplane.cpu, runplane.requests),
  };
  const throughput = { runplane: runplane.perSecond, baseline: raw.result.perSecond, unit: 'req/s' };
  return [
    ...minimalRows(runplane, minimal),
    { metric: '/run accept vs raw queue.add (floor)', ...throughput, target: '-', pass: true, cpu },
    ...percentileRows('/run accept', runplane.latency, raw.result),
    {
      metric: 'HTTP floor: GET /healthz, same router',
      ...throughput,
      runplane: floor.result.requests.average,
      target: '-',
      pass: true,
      cpu: { baseline: cpu.baseline, runplane: perOperation(floor.cpu, floor.result.requests.total) },
    },
  ];
}
