// Accept throughput: POST /v2/{id}/run against raw BullMQ's queue.add on the same Redis, and the router's HTTP floor.
import autocannon from 'autocannon';
import { createQueue, type Redis } from '@runplane/queue';
import { cpuCeiling, measureCpu, perOperation } from '../cpu-meter';
import { ms, percentile, percentileRows, type Row } from '../results';
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

/** /run accept throughput and latency against raw BullMQ, and GET /healthz on the same router as the HTTP floor. */
export async function benchAccept(
  router: Router,
  redis: Redis,
  rawPrefix: string,
  options: JobsBenchOptions,
): Promise<Row[]> {
  const raw = await rawAccept(redis, rawPrefix, options);
  const runplane = await runplaneAccept(router, redis, options);
  // The floor of any HTTP answer on this machine: the same router and load generator, a route that does nothing.
  const floor = await measureCpu(redis, router.pid, () =>
    autocannon({ url: `${router.base}/healthz`, duration: options.durationSeconds, connections: options.connections }),
  );
  const result = runplane.result;
  if (result.non2xx > 0) console.warn(`/run answered ${result.non2xx} non-2xx responses`);
  const ratio = result.requests.average / raw.result.perSecond;
  const cpu = {
    baseline: perOperation(raw.cpu, raw.result.count),
    runplane: perOperation(runplane.cpu, result.requests.total),
    ceiling: cpuCeiling(runplane.cpu, result.requests.total),
  };
  const throughput = { runplane: result.requests.average, baseline: raw.result.perSecond, unit: 'req/s' };
  return [
    { metric: '/run accept throughput', ...throughput, target: 'ratio>=0.5', pass: ratio >= 0.5, cpu },
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
