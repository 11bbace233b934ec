// CPU spent by each party of a benchmark phase (this process, the job-router process, Redis): on a shared machine
// wall-clock throughput is noisy, CPU per operation is not, and it shows where the time goes.
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { Redis } from '@runplane/queue';

/** CPU milliseconds of one phase, by party. */
export interface CpuSpent {
  bench: number;
  router: number;
  redis: number;
  /** Commands Redis ran meanwhile (every client's: a script counts once, plus the commands it calls). */
  redisCalls: number;
}

const TICKS_PER_SECOND = 100;

/**
 * CPU ms of a process (Linux /proc): the time its threads have run, in ns (`/proc/<pid>/task/<tid>/schedstat`), so a
 * phase of a few ms reads true; else utime + stime, in 10 ms ticks; 0 where /proc is unavailable.
 */
export function processCpuMs(pid: number | undefined): number {
  if (pid === undefined) return 0;
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return ticksCpuMs(pid);
  }
  let ns = 0;
  for (const thread of threads) ns += threadCpuNs(pid, thread);
  return ns / 1e6;
}

/** The ns a thread has run (first field of its schedstat); 0 for a thread that has just ended. */
function threadCpuNs(pid: number, thread: string): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return 0;
  }
}

/** utime + stime of a process in ms, in 10 ms ticks; 0 where /proc is unavailable. */
function ticksCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of /proc/<pid>/stat (utime, stime), counted after the command name.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/**
 * Redis's CPU in ms and the commands it has run (summed over INFO commandstats: every client's, a script once plus
 * the commands it calls), both since its start or its last CONFIG RESETSTAT, read in one INFO.
 */
async function redisCounters(redis: Redis): Promise<{ cpuMs: number; calls: number }> {
  const info = await redis.info('cpu', 'commandstats');
  const read = (name: string) => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1] ?? 0);
  let calls = 0;
  for (const match of info.matchAll(/calls=(\d+)/g)) calls += Number(match[1]);
  return { cpuMs: (read('used_cpu_user') + read('used_cpu_sys')) * 1000, calls };
}

async function snapshot(redis: Redis, routerPid: number | undefined): Promise<CpuSpent> {
  const own = process.cpuUsage();
  const { cpuMs, calls } = await redisCounters(redis);
  return { bench: (own.user + own.system) / 1000, router: processCpuMs(routerPid), redis: cpuMs, redisCalls: calls };
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
    cpu: {
      bench: after.bench - before.bench,
      router: after.router - before.router,
      redis: after.redis - before.redis,
      redisCalls: after.redisCalls - before.redisCalls,
    },
  };
}

/** "CPU µs/op: bench 12, router 46, redis 8 (9.5 commands)" per operation. */
export function perOperation(cpu: CpuSpent, operations: number): string {
  const per = (n: number) => n / Math.max(1, operations);
  const us = (ms: number) => (per(ms) * 1000).toFixed(0);
  const calls = `${per(cpu.redisCalls).toFixed(1)} commands`;
  return `CPU µs/op: bench ${us(cpu.bench)}, router ${us(cpu.router)}, redis ${us(cpu.redis)} (${calls})`;
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
      redisCalls: total.redisCalls + cpu.redisCalls,
    }),
    { bench: 0, router: 0, redis: 0, redisCalls: 0 },
  );
}
