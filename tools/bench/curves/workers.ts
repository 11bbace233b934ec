// Workers curve: 100 to 5,000 parked long-poll job-takes against one job-router: the router's memory per parked
// take (its heap in use plus external memory after a full GC, read through router-memory-hook.ts; resident set growth
// alongside, for reference) and the dispatch p50 (engine submit -> a parked take answers).
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { createRedis, type Redis } from '@runplane/queue';
import { call, type JobsBenchOptions, type Router, startRouter } from '../jobs/router';
import type { Curve, Point } from './curve';
import { timerWakeCurve } from './dispatch-cpu';
import { dispatchOnce, type Floor, measureDispatch, submitOne } from './dispatch-samples';
import {
  type MinimalDispatch,
  minimalSubmit,
  parkMinimalTakers,
  startMinimalDispatch,
  type Takers,
} from './minimal-dispatch';
import { routerMemory, routerMemoryEnv } from './router-memory';
import { scriptCostCurves } from './script-cost';

const SETTLE_MS = 2000;
/**
 * How long takes wait, on both sides (the most the job-router allows): none ends and parks again while a size is
 * measured, which would count its CPU against the dispatches.
 */
const TAKE_WAIT_MS = 85_000;

/** Resident set of process `pid` in bytes. */
function rss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
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

interface Measured {
  memory: Point;
  resident: Point;
  dispatch: Point;
  floor: Point;
  busy: Point;
  submit: Point;
  ping: Point;
  cpu: Point;
  floorCpu: Point;
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
    await sleep(SETTLE_MS / 4);
    const arrived = takers.next();
    await submitOne(router, endpointId);
    await arrived;
  } finally {
    await takers.stop();
  }
}

/** `size` takes parked on the floor's server, and two dispatches through them unmeasured (code compiled for the path). */
async function parkFloor(server: MinimalDispatch, redis: Redis, size: number): Promise<Floor> {
  const takers = parkMinimalTakers(server, size);
  await sleep(SETTLE_MS);
  for (let round = 0; round < WARM_UP_ROUNDS; round += 1)
    await dispatchOnce(() => minimalSubmit(redis, server), takers, 10);
  return { server, takers, redis };
}

async function measureSize(router: Router, size: number, floorParts: Omit<Floor, 'takers'>): Promise<Measured> {
  const endpointId = await router.endpoint();
  await warmUp(router, endpointId, size);
  await sleep(SETTLE_MS);
  const [before, residentBefore] = [await routerMemory(router.pid), rss(router.pid)];
  const takers = await parkTakers(router, endpointId, size);
  try {
    // Parking is asynchronous (each take opens a connection and registers in the engine): let the takes settle.
    await sleep(SETTLE_MS);
    const [after, residentAfter] = [await routerMemory(router.pid), rss(router.pid)];
    const memory = { n: size, cost: (after - before) / size / 1024 };
    const resident = { n: size, cost: (residentAfter - residentBefore) / size / 1024 };
    const floor = await parkFloor(floorParts.server, floorParts.redis, size);
    const parked = { router, endpointId, takers, floor, size };
    const { latency, cpu } = await measureDispatch(parked).finally(() => floor.takers.stop());
    const point = (cost: number): Point => ({ n: size, cost });
    return {
      memory,
      resident,
      dispatch: point(latency.dispatch),
      floor: point(latency.floor),
      busy: point(latency.busy),
      submit: point(latency.submit),
      ping: point(latency.ping),
      cpu: point(cpu.runplane.total),
      floorCpu: point(cpu.floor.total),
    };
  } finally {
    await takers.stop();
  }
}

/** Each size's measurements, as points by curve. */
type Series = Record<keyof Measured, Point[]>;

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
      name: 'dispatch p50 by parked takes (after 10 ms of quiet)',
      ...latency,
      points: series.dispatch,
      target: '<= 2 ms at the largest size',
      pass: last <= 2,
    },
    // Where a dispatch's time goes on this machine: the floor's dispatch (the same hops with no Runplane code) after
    // the same quiet, and what splits it (splitCurves).
    {
      name: 'floor dispatch p50 (bare Fastify takes, one script publishing the job) after 10 ms of quiet',
      ...latency,
      points: series.floor,
    },
    {
      name: "dispatch p50 against the floor's",
      nLabel: 'parked takes',
      unit: 'x',
      points: series.dispatch.map((point, i) => ({ n: point.n, cost: point.cost / (series.floor[i]?.cost ?? NaN) })),
    },
    ...splitCurves(series),
  ];
}

/**
 * What splits a dispatch's latency on this machine: the same dispatch with the path's processes not idle, one hop of
 * it, a bare round trip, and the CPU a dispatch costs every process, with what follows it (the worker's next take;
 * Runplane's job-done); and (timerWakeCurve) the CPU a process pays to wake from the quiet before it runs its own work.
 */
function splitCurves(series: Series): Curve[] {
  const latency = { nLabel: 'parked takes', unit: 'ms' };
  const perDispatch = { nLabel: 'parked takes', unit: 'µs' };
  return [
    { name: 'dispatch p50 after 1 ms of quiet', ...latency, points: series.busy },
    { name: "dispatch p50's submit alone (its script's answer)", ...latency, points: series.submit },
    { name: 'Redis PING p50 after 10 ms of quiet, between the dispatches', ...latency, points: series.ping },
    { name: 'CPU per dispatch after 10 ms of quiet, all processes', ...perDispatch, points: series.cpu },
    {
      name: "the floor's CPU per dispatch after 10 ms of quiet, all processes",
      ...perDispatch,
      points: series.floorCpu,
    },
  ];
}

/** The workers curves at sizes scaled by `factor` (1 = 100, 1,000 and 5,000 parked takes). */
export async function workersCurves(options: JobsBenchOptions, factor: number): Promise<Curve[]> {
  const sizes = [100, 1000, 5000].map((size) => Math.max(1, Math.round(size * factor)));
  const restoreEnv = routerMemoryEnv({ JOB_TAKE_WAIT_MS: String(TAKE_WAIT_MS) });
  const router = await startRouter(options).finally(restoreEnv);
  const server = await startMinimalDispatch(router.config.REDIS_URL, TAKE_WAIT_MS).catch(async (error: unknown) => {
    await router.close();
    throw error;
  });
  const redis = createRedis(router.config.REDIS_URL);
  // Before any take is parked: a process that holds thousands pays for their timeouts and new takes meanwhile.
  const wakes = await timerWakeCurve();
  const series: Series = {
    memory: [],
    resident: [],
    dispatch: [],
    floor: [],
    busy: [],
    submit: [],
    ping: [],
    cpu: [],
    floorCpu: [],
  };
  try {
    for (const size of sizes) {
      const measured = await measureSize(router, size, { server, redis });
      for (const key of Object.keys(series) as (keyof Measured)[]) series[key].push(measured[key]);
    }
  } finally {
    redis.disconnect();
    await Promise.all([server.close(), router.close()]);
  }
  // Where the submission's share of a dispatch goes in Redis, measured with nothing else running scripts.
  return [...curvesOf(series), wakes, ...(await scriptCostCurves(router.config.REDIS_URL))];
}
