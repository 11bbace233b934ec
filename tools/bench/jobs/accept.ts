// Accept throughput: POST /v2/{id}/run against raw BullMQ's queue.add on the same Redis, and the router's HTTP floor.
import autocannon from 'autocannon';
import { createQueue, type Redis } from '@runplane/queue';
import { cpuCeiling, measureCpu, perOperation } from '../cpu-meter';
import { ms, percentile, percentileRows, type Row } from '../results';
import { type MinimalServer, minimalAccept } from './minimal';
import { catalog, INPUT, type JobsBenchOptions, type Router } from './router';

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

async function runplaneAccept(router: Router, redis: Redis, options: JobsBenchOptions) {
  const endpointId = await router.endpoint();
  return measureCpu(redis, router.pid, () =>
    autocannon({
      url: `${router.base}/v2/${endpointId}/run`,
      method: 'POST',
      duration: options.durationSeconds,
      connections: options.connections,
      headers: { authorization: `Bearer ${router.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: INPUT }),
    }),
  );
}

/** The baselines a suite compares with: raw BullMQ on `rawPrefix` (the physical floor) and the minimal pipeline. */
export interface Baselines {
  rawPrefix: string;
  minimal: MinimalServer;
}

/** µs of one party's CPU per operation. */
const usPerOp = (cpuMs: number, operations: number): number => (cpuMs * 1000) / Math.max(1, operations);

type Accepted = Awaited<ReturnType<typeof runplaneAccept>>;

/** Runplane's /run against the minimal pipeline: throughput (≥ 0.6×) and the server's CPU per /run (≤ 2×). */
function minimalRows(runplane: Accepted, minimal: Accepted): Row[] {
  const { result } = runplane;
  const routerUs = usPerOp(runplane.cpu.router, result.requests.total);
  const minimalUs = usPerOp(minimal.cpu.router, minimal.result.requests.total);
  return [
    {
      metric: '/run accept vs minimal pipeline',
      runplane: result.requests.average,
      baseline: minimal.result.requests.average,
      unit: 'req/s',
      target: 'ratio>=0.6',
      pass: result.requests.average / minimal.result.requests.average >= 0.6,
      cpu: {
        baseline: perOperation(minimal.cpu, minimal.result.requests.total),
        runplane: perOperation(runplane.cpu, result.requests.total),
        ceiling: cpuCeiling(runplane.cpu, result.requests.total),
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
  const minimal = await minimalAccept(baselines.minimal, redis, options);
  const runplane = await runplaneAccept(router, redis, options);
  // The floor of any HTTP answer on this machine: the same router and load generator, a route that does nothing.
  const floor = await measureCpu(redis, router.pid, () =>
    autocannon({ url: `${router.base}/healthz`, duration: options.durationSeconds, connections: options.connections }),
  );
  const result = runplane.result;
  if (result.non2xx > 0) console.warn(`/run answered ${result.non2xx} non-2xx responses`);
  if (minimal.result.non2xx > 0) console.warn(`minimal /run answered ${minimal.result.non2xx} non-2xx responses`);
  const cpu = {
    baseline: perOperation(raw.cpu, raw.result.count),
    runplane: perOperation(runplane.cpu, result.requests.total),
    ceiling: cpuCeiling(runplane.cpu, result.requests.total),
  };
  const throughput = { runplane: result.requests.average, baseline: raw.result.perSecond, unit: 'req/s' };
  return [
    ...minimalRows(runplane, minimal),
    { metric: '/run accept vs raw queue.add (floor)', ...throughput, target: '-', pass: true, cpu },
    ...percentileRows('/run accept', result.latency, raw.result),
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
