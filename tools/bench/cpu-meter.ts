// CPU spent by each party of a benchmark phase (this process, the job-router process, Redis): on a shared machine
// wall-clock throughput is noisy, CPU per operation is not, and it shows where the time goes.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { Redis } from '@runplane/queue';

/** CPU milliseconds of one phase, by party. */
export interface CpuSpent {
  bench: number;
  router: number;
  redis: number;
}

const TICKS_PER_SECOND = 100;

/** utime + stime of a process in ms (Linux /proc); 0 where /proc is unavailable. */
export function processCpuMs(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of /proc/<pid>/stat (utime, stime), counted after the command name.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

async function redisCpuMs(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const read = (name: string) => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1] ?? 0);
  return (read('used_cpu_user') + read('used_cpu_sys')) * 1000;
}

async function snapshot(redis: Redis, routerPid: number | undefined): Promise<CpuSpent> {
  const own = process.cpuUsage();
  return { bench: (own.user + own.system) / 1000, router: processCpuMs(routerPid), redis: await redisCpuMs(redis) };
}

/** Runs `phase` and returns its result with the CPU each party spent meanwhile. */
export async function measureCpu<T>(
  redis: Redis,
  routerPid: number | undefined,
  phase: () => Promise<T>,
): Promise<{ result: T; cpu: CpuSpent }> {
  const before = await snapshot(redis, routerPid);
  const result = await phase();
  const after = await snapshot(redis, routerPid);
  return {
    result,
    cpu: { bench: after.bench - before.bench, router: after.router - before.router, redis: after.redis - before.redis },
  };
}

/** "bench 12.3, router 45.6, redis 7.8" µs per operation. */
export function perOperation(cpu: CpuSpent, operations: number): string {
  const us = (ms: number) => ((ms * 1000) / Math.max(1, operations)).toFixed(0);
  return `CPU µs/op: bench ${us(cpu.bench)}, router ${us(cpu.router)}, redis ${us(cpu.redis)}`;
}

/**
 * The most operations per second this machine's cores could give at the measured CPU per operation: all parties
 * share the cores, and the job-router's own share runs on one of them (one event loop). A ratio target above
 * `ceiling / baseline` cannot be met on this machine without spending less CPU per operation.
 */
export function cpuCeiling(cpu: CpuSpent, operations: number): number {
  const perOp = (ms: number) => ms / Math.max(1, operations);
  const total = perOp(cpu.bench) + perOp(cpu.router) + perOp(cpu.redis);
  const shared = total > 0 ? (availableParallelism() * 1000) / total : Infinity;
  const router = cpu.router > 0 ? 1000 / perOp(cpu.router) : Infinity;
  return Math.min(shared, router);
}

/** The CPU of several phases added up, by party. */
export function sumCpu(spent: CpuSpent[]): CpuSpent {
  return spent.reduce(
    (total, cpu) => ({
      bench: total.bench + cpu.bench,
      router: total.router + cpu.router,
      redis: total.redis + cpu.redis,
    }),
    { bench: 0, router: 0, redis: 0 },
  );
}
