// Latency of one job at a time: dispatch (enqueue -> a parked job-take answers) against raw BullMQ's own, and
// /runsync with a no-op handler against a GET /healthz round trip.
import { resolveJobPolicy } from '@runplane/jobs';
import { createQueue, createWorker, type Redis } from '@runplane/queue';
import { ms, percentileRows, percentilesOf, type Row } from '../results';
import { call, catalog, INPUT, type Router, startWorkers } from './router';

/** Lets a waiting party settle before the next sample, so each sample measures a wake-up, not a queued hand-out. */
const PARK_MS = 10;
const park = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, PARK_MS));

/**
 * Raw BullMQ's own dispatch latency on the same Redis: from `queue.add` to the processor of an idle BullMQ worker
 * (blocked on its queue) being called. The floor a queue on this Redis and machine gives a waiting consumer.
 */
async function rawDispatch(redis: Redis, rawPrefix: string, samples: number): Promise<number[]> {
  const prefix = `${rawPrefix}dispatch:`;
  const queue = createQueue(catalog, 'bench-jobs', { redis, prefix });
  let arrived: () => void = () => undefined;
  const handlers = {
    'bench.job': async () => {
      arrived();
      return INPUT;
    },
  };
  const worker = createWorker(catalog, 'bench-jobs', handlers, { redis, prefix });
  await worker.worker.waitUntilReady();
  const latencies: number[] = [];
  try {
    for (let i = 0; i < samples; i += 1) {
      await park();
      const called = new Promise<void>((resolve) => (arrived = resolve));
      const start = process.hrtime.bigint();
      await queue.add('bench.job', { input: INPUT });
      await called;
      latencies.push(ms(start));
    }
  } finally {
    await worker.close();
    await queue.close();
  }
  return latencies.sort((a, b) => a - b);
}

/** From the engine's submit to the answer of a job-take parked in the router, `samples` times. */
async function runplaneDispatch(router: Router, samples: number): Promise<number[]> {
  const endpointId = await router.endpoint();
  const workerId = 'bench-dispatch';
  const headers = { authorization: await router.workerToken(endpointId, workerId) };
  const worker = `${router.base}/v2/${endpointId}`;
  const policy = resolveJobPolicy(undefined);
  const latencies: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const take = call(`${worker}/job-take/${workerId}?job_in_progress=0`, { headers });
    // Give the take time to park in the engine, so the figure is the wake-up path, not a queued hand-out.
    await park();
    const start = process.hrtime.bigint();
    await router.engine.submit({
      endpointId,
      accountId: router.accountId,
      input: INPUT,
      extra: {},
      policy,
      sync: false,
    });
    const response = await take;
    latencies.push(ms(start));
    const job = JSON.parse(response.text) as { id: string };
    await call(`${worker}/job-done/${workerId}/${job.id}`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ output: 1 }),
    });
  }
  return latencies.sort((a, b) => a - b);
}

/** Dispatch latency percentiles; the p50 target is 2 ms. */
export async function benchDispatch(router: Router, redis: Redis, rawPrefix: string, samples: number): Promise<Row[]> {
  const raw = await rawDispatch(redis, rawPrefix, samples);
  const latencies = await runplaneDispatch(router, samples);
  return percentileRows('dispatch enqueue → parked job-take', percentilesOf(latencies), percentilesOf(raw), 2);
}

/** `samples` /runsync calls served by two workers, each after a GET /healthz (the round-trip floor). */
async function runsyncLatencies(router: Router, endpointId: string, samples: number) {
  const headers = { authorization: `Bearer ${router.secret}`, 'content-type': 'application/json' };
  const body = JSON.stringify({ input: INPUT });
  const latencies: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    let start = process.hrtime.bigint();
    await call(`${router.base}/healthz`);
    floor.push(ms(start));
    start = process.hrtime.bigint();
    const response = await call(`${router.base}/v2/${endpointId}/runsync?wait=10000`, {
      method: 'POST',
      headers,
      body,
    });
    const record = JSON.parse(response.text) as { status?: string };
    if (record.status !== 'COMPLETED')
      throw new Error(`/runsync answered ${response.status} ${JSON.stringify(record)}`);
    latencies.push(ms(start));
  }
  return { latencies: latencies.sort((a, b) => a - b), floor: floor.sort((a, b) => a - b) };
}

/** /runsync latency percentiles; the p50 target is 3 ms. */
export async function benchRunsync(router: Router, samples: number): Promise<Row[]> {
  const endpointId = await router.endpoint();
  const stop = new AbortController();
  const workers = await startWorkers(router, endpointId, 2, stop.signal);
  try {
    const { latencies, floor } = await runsyncLatencies(router, endpointId, samples);
    return percentileRows('/runsync no-op handler', percentilesOf(latencies), percentilesOf(floor), 3);
  } finally {
    stop.abort();
    await Promise.all(workers);
  }
}
