// Runplane's side of the peer comparison (tools/bench/peer.bench.ts), driven as the Go client drives Temporal: closed
// loops of submissions, one connection each; 50 protocol workers each taking one job at a time; one idle worker for
// latency. The job-router, its workers and its helpers are the job benchmark's (tools/bench/jobs/router.ts).
import autocannon from 'autocannon';
import type { Redis } from '@runplane/queue';
import { runWorker } from '@runplane/worker-sdk';
import { type CpuSpent, measureCpu } from './cpu-meter';
import { call, INPUT, type Router, startWorkers } from './jobs/router';
import { ms, percentilesOf } from './results';

/** One measured phase of Runplane's side, with the CPU each party spent in it. */
export interface Measured {
  count: number;
  perSecond: number;
  p50: number;
  p99: number;
  cpu: CpuSpent;
}

const headersOf = (router: Router) => ({
  authorization: `Bearer ${router.secret}`,
  'content-type': 'application/json',
});
const BODY = JSON.stringify({ input: INPUT });

/** POST /run from `connections` closed loops for `seconds`, no worker taking: what accepting a job costs. */
export async function runplaneSubmit(router: Router, redis: Redis, connections: number, seconds: number) {
  const endpointId = await router.endpoint();
  const { result, cpu } = await measureCpu(redis, router.pid, () =>
    autocannon({
      url: `${router.base}/v2/${endpointId}/run`,
      method: 'POST',
      duration: seconds,
      connections,
      headers: headersOf(router),
      body: BODY,
    }),
  );
  if (result.non2xx > 0) throw new Error(`/run answered ${result.non2xx} non-2xx responses`);
  const count = result.requests.total;
  return { count, perSecond: count / result.duration, p50: result.latency.p50, p99: result.latency.p99, cpu };
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Waits until `total` jobs of the endpoint are completed, looking every millisecond. */
async function completed(router: Router, endpointId: string, total: number): Promise<void> {
  while ((await router.engine.counts(endpointId)).completed < total) await sleep(1);
}

/** `total` jobs submitted from `workers` loops while `workers` workers complete them; jobs/s first submit → last done. */
export async function runplaneEndToEnd(router: Router, redis: Redis, total: number, workers: number) {
  const endpointId = await router.endpoint();
  const stop = new AbortController();
  const running = await startWorkers(router, endpointId, workers, stop.signal);
  const url = `${router.base}/v2/${endpointId}/run`;
  const headers = headersOf(router);
  try {
    const { result, cpu } = await measureCpu(redis, router.pid, async () => {
      const start = process.hrtime.bigint();
      let next = 0;
      const loop = async () => {
        while (next < total) {
          next += 1;
          const response = await call(url, { method: 'POST', headers, body: BODY });
          if (response.status !== 200) throw new Error(`/run answered ${response.status}: ${response.text}`);
        }
      };
      await Promise.all(Array.from({ length: workers }, loop));
      await completed(router, endpointId, total);
      return (total * 1000) / ms(start);
    });
    return { count: total, perSecond: result, p50: 0, p99: 0, cpu };
  } finally {
    stop.abort();
    await Promise.all(running);
  }
}

/**
 * `samples` times, one job at a time: from the start of a POST /run to the handler of an idle worker (parked in its
 * job-take) being called; then waits for the job to complete, and for 10 ms so the worker parks again.
 */
export async function runplaneLatency(router: Router, redis: Redis, samples: number): Promise<Measured> {
  const endpointId = await router.endpoint();
  const workerId = 'peer-latency';
  const token = await router.workerToken(endpointId, workerId);
  let arrived: () => void = () => undefined;
  const handler = async () => (arrived(), INPUT);
  const stop = new AbortController();
  const baseUrl = `${router.base}/v2`;
  const worker = runWorker({
    handler,
    baseUrl,
    endpointId,
    workerId,
    token,
    signal: stop.signal,
    log: () => undefined,
  });
  const url = `${baseUrl}/${endpointId}/run`;
  const latencies: number[] = [];
  try {
    const { cpu } = await measureCpu(redis, router.pid, async () => {
      for (let i = 0; i < samples; i += 1) {
        await sleep(10);
        const called = new Promise<void>((resolve) => (arrived = resolve));
        const start = process.hrtime.bigint();
        await Promise.all([call(url, { method: 'POST', headers: headersOf(router), body: BODY }), called]);
        latencies.push(ms(start));
        await completed(router, endpointId, i + 1);
      }
    });
    return { count: samples, perSecond: 0, ...percentilesOf(latencies.sort((a, b) => a - b)), cpu };
  } finally {
    stop.abort();
    await worker;
  }
}
