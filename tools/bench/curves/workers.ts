// Workers curve: 100 to 5,000 parked long-poll job-takes against one job-router: the router's memory per parked
// take (its heap in use plus external memory after a full GC, read through router-memory-hook.ts; resident set growth
// alongside, for reference) and the dispatch p50 (engine submit -> a parked take answers).
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { createRedis, type Redis } from '@runplane/queue';
import { ms, percentilesOf } from '../results';
import { call, INPUT, type JobsBenchOptions, type Router, startRouter } from '../jobs/router';
import type { Curve, Point } from './curve';
import { routerMemory, routerMemoryEnv } from './router-memory';

const SAMPLES = 50;
const SETTLE_MS = 2000;
const POLICY = { executionTimeoutMs: 600_000, ttlMs: 86_400_000, lowPriority: false };
const pause = (millis: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, millis));

/** Resident set of process `pid` in bytes. */
function rss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

interface Takers {
  /** Resolves with the next job id any taker receives. */
  next(): Promise<void>;
  stop(): Promise<void>;
}

/** `count` workers, each looping a job-take with no job in progress and reporting each job done at once. */
async function parkTakers(router: Router, endpointId: string, count: number): Promise<Takers> {
  const controller = new AbortController();
  let arrived: () => void = () => undefined;
  const loop = async (workerId: string, token: string): Promise<void> => {
    const headers = { authorization: token };
    const worker = `${router.base}/v2/${endpointId}`;
    while (!controller.signal.aborted) {
      const response = await request(`${worker}/job-take/${workerId}?job_in_progress=0`, {
        headers,
        signal: controller.signal,
      }).catch(() => undefined);
      const text = (await response?.body.text().catch(() => '')) ?? '';
      if (response?.statusCode !== 200 || text.length === 0) continue;
      arrived();
      const job = JSON.parse(text) as { id: string };
      const body = JSON.stringify({ output: 1 });
      // A refused or timed-out job-done (the router saturated by thousands of takes) ends nothing: the loop goes on.
      await call(`${worker}/job-done/${workerId}/${job.id}`, { method: 'POST', headers, body }).catch(() => undefined);
    }
  };
  const loops: Promise<void>[] = [];
  for (let i = 0; i < count; i += 1) {
    const workerId = `curve-${endpointId}-${i}`;
    loops.push(loop(workerId, await router.workerToken(endpointId, workerId)));
  }
  return {
    next: () => new Promise<void>((resolve) => (arrived = resolve)),
    stop: async () => {
      controller.abort();
      await Promise.all(loops);
    },
  };
}

/** Queues one job through the router's own engine, as another job-router replica would. */
async function submitOne(router: Router, endpointId: string): Promise<void> {
  await router.engine.submit({
    endpointId,
    accountId: router.accountId,
    input: INPUT,
    extra: {},
    policy: POLICY,
    sync: false,
  });
}

const p50 = (samples: number[]): number => percentilesOf(samples.sort((a, b) => a - b)).p50;

/**
 * Dispatch latencies (submit -> a parked take answers), `SAMPLES` jobs one at a time after 10 ms of quiet, and of the
 * same samples the submit's own round trip (its script's answer to the benchmark process), a part of each dispatch.
 */
async function dispatchP50(
  router: Router,
  endpointId: string,
  takers: Takers,
): Promise<{ dispatch: number; submit: number }> {
  const [dispatch, submit]: [number[], number[]] = [[], []];
  for (let i = 0; i < SAMPLES; i += 1) {
    await pause(10);
    const arrived = takers.next();
    const start = process.hrtime.bigint();
    await submitOne(router, endpointId);
    submit.push(ms(start));
    await arrived;
    dispatch.push(ms(start));
  }
  return { dispatch: p50(dispatch), submit: p50(submit) };
}

/** A Redis PING's round trip from the benchmark process after 10 ms of quiet, as each dispatch sample starts: p50. */
async function quietPingP50(redis: Redis): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i += 1) {
    await pause(10);
    const start = process.hrtime.bigint();
    await redis.ping();
    samples.push(ms(start));
  }
  return p50(samples);
}

interface Measured {
  memory: Point;
  resident: Point;
  dispatch: Point;
  submit: Point;
}

/** Rounds of {@link warmUp}: V8 compiles the path's optimized code over more than one. */
const WARM_UP_ROUNDS = 2;

/**
 * `size` takes parked and one job through them, {@link WARM_UP_ROUNDS} times, so neither the endpoint's one-time
 * state (its queue, its channels) nor the router's (code compiled for the path, pools and tables grown to the size)
 * is counted per take.
 */
async function warmUp(router: Router, endpointId: string, size: number): Promise<void> {
  for (let round = 0; round < WARM_UP_ROUNDS; round += 1) await warmUpRound(router, endpointId, size);
}

async function warmUpRound(router: Router, endpointId: string, size: number): Promise<void> {
  const takers = await parkTakers(router, endpointId, size);
  try {
    await pause(SETTLE_MS / 4);
    const arrived = takers.next();
    await submitOne(router, endpointId);
    await arrived;
  } finally {
    await takers.stop();
  }
}

async function measureSize(router: Router, size: number): Promise<Measured> {
  const endpointId = await router.endpoint();
  await warmUp(router, endpointId, size);
  await pause(SETTLE_MS);
  const [before, residentBefore] = [await routerMemory(router.pid), rss(router.pid)];
  const takers = await parkTakers(router, endpointId, size);
  try {
    // Parking is asynchronous (each take opens a connection and registers in the engine): let the takes settle.
    await pause(SETTLE_MS);
    const [after, residentAfter] = [await routerMemory(router.pid), rss(router.pid)];
    const memory = { n: size, cost: (after - before) / size / 1024 };
    const resident = { n: size, cost: (residentAfter - residentBefore) / size / 1024 };
    const latency = await dispatchP50(router, endpointId, takers);
    return {
      memory,
      resident,
      dispatch: { n: size, cost: latency.dispatch },
      submit: { n: size, cost: latency.submit },
    };
  } finally {
    await takers.stop();
  }
}

/** Each size's measurements, as points by curve; `ping` is a Redis PING's round trip after the size's dispatches. */
type Series = Record<keyof Measured | 'ping', Point[]>;

/** The curves of `series`, with their targets. */
function curvesOf(series: Series): Curve[] {
  const last = series.dispatch.at(-1)?.cost ?? Infinity;
  const perTake = { nLabel: 'parked takes', unit: 'KB' };
  const latency = { nLabel: 'parked takes', unit: 'ms' };
  return [
    {
      name: 'router memory per parked job-take',
      ...perTake,
      points: series.memory,
      target: '<= 10 KB (heap in use + external, after a full GC)',
      pass: series.memory.every((point) => point.cost <= 10),
    },
    { name: 'router resident set growth per parked job-take', ...perTake, points: series.resident },
    {
      name: 'dispatch p50 by parked takes',
      ...latency,
      points: series.dispatch,
      target: '<= 2 ms at the largest size',
      pass: last <= 2,
    },
    // Where a dispatch's time goes on this machine: one hop of it, and a bare round trip after the same quiet.
    { name: "dispatch p50's submit alone (its script's answer)", ...latency, points: series.submit },
    { name: 'Redis PING p50 after 10 ms of quiet', ...latency, points: series.ping },
  ];
}

/** The workers curves at sizes scaled by `factor` (1 = 100, 1,000 and 5,000 parked takes). */
export async function workersCurves(options: JobsBenchOptions, factor: number): Promise<Curve[]> {
  const sizes = [100, 1000, 5000].map((size) => Math.max(1, Math.round(size * factor)));
  const restoreEnv = routerMemoryEnv();
  const router = await startRouter(options).finally(restoreEnv);
  const series: Series = { memory: [], resident: [], dispatch: [], submit: [], ping: [] };
  const redis = createRedis(router.config.REDIS_URL);
  try {
    for (const size of sizes) {
      const measured = await measureSize(router, size);
      for (const key of ['memory', 'resident', 'dispatch', 'submit'] as const) series[key].push(measured[key]);
      series.ping.push({ n: size, cost: await quietPingP50(redis) });
    }
  } finally {
    redis.disconnect();
    await router.close();
  }
  return curvesOf(series);
}
