// The workers curve's CPU per dispatch: jobs one at a time through Runplane or through the floor, each after the
// dispatch p50's quiet, and the CPU every process spent meanwhile, less what the same processes spend over an idle wait
// as long (timers, heartbeats); and the CPU a bare timer's wake-up costs after the same quiet.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from '@runplane/queue';
import { measureCpu } from '../cpu-meter';
import type { Curve, Point } from './curve';

/** Dispatches measured per side and size. */
const DISPATCHES = 200;

/** CPU µs per dispatch, by process. */
export interface DispatchCpu {
  /** The benchmark process: the submitting engine (or the floor's script call) and the clients holding the takes. */
  bench: number;
  /** The server holding the takes: the job-router, or the floor's bare Fastify server. */
  server: number;
  redis: number;
  total: number;
}

/**
 * CPU µs per dispatch, by process, over {@link DISPATCHES} calls of `dispatch` (one job submitted and its take
 * answered, after its quiet), `pid` being the server holding the takes. A dispatch's CPU includes what follows it on
 * each side: the worker's next take (and, for Runplane, its job-done).
 */
export async function cpuPerDispatch(
  redis: Redis,
  pid: number,
  dispatch: () => Promise<unknown>,
): Promise<DispatchCpu> {
  const began = performance.now();
  const busy = await measureCpu(redis, pid, async () => {
    for (let i = 0; i < DISPATCHES; i += 1) await dispatch();
  });
  const idle = await measureCpu(redis, pid, () => sleep(performance.now() - began));
  const per = (busyMs: number, idleMs: number) => Math.max(0, ((busyMs - idleMs) * 1000) / DISPATCHES);
  const bench = per(busy.cpu.bench, idle.cpu.bench);
  const server = per(busy.cpu.router, idle.cpu.router);
  const redisUs = per(busy.cpu.redis, idle.cpu.redis);
  return { bench, server, redis: redisUs, total: bench + server + redisUs };
}

/**
 * CPU µs this process spends per wake-up of a bare timer, {@link DISPATCHES} of them after 1 and after 10 ms of sleep
 * each, before any take is parked: what a process on a dispatch's path pays to wake from the quiet before its work.
 */
export async function timerWakeCurve(): Promise<Curve> {
  const points: Point[] = [];
  // Whatever this process started (the servers' output, compiled code) settles first.
  await sleep(2000);
  for (const quietMs of [10, 1]) {
    const before = process.cpuUsage();
    for (let i = 0; i < DISPATCHES; i += 1) await sleep(quietMs);
    const spent = process.cpuUsage(before);
    points.unshift({ n: quietMs, cost: (spent.user + spent.system) / DISPATCHES });
  }
  return {
    name: 'CPU per wake-up of a bare timer (this process, no take parked)',
    nLabel: 'quiet before (ms)',
    unit: 'µs',
    points,
  };
}

/** "bench 310, server 420, Redis 260 µs" */
export function describeDispatchCpu(cpu: DispatchCpu): string {
  return `bench ${cpu.bench.toFixed(0)}, server ${cpu.server.toFixed(0)}, Redis ${cpu.redis.toFixed(0)} µs`;
}
