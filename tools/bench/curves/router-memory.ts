// The benchmarked job-router's live memory, read through router-memory-hook.ts: heap in use plus memory held outside
// the heap for JavaScript objects (buffers), after a full garbage collection, as the median of a few readings.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pollUntil } from '@runplane/testing';

const READINGS = 5;

/** Where the router writes its readings (set in its environment by {@link routerMemoryEnv}). */
const memoryFile = (): string => join(tmpdir(), `runplane-bench-router-memory-${process.pid}.json`);

/**
 * NODE_OPTIONS and the reading file for a job-router process that reports its memory, and `settings` of its own: set
 * them in this process's environment before starting the router (a child inherits them), and restore them after with
 * the returned function.
 */
export function routerMemoryEnv(settings: Record<string, string> = {}): () => void {
  const hook = join(__dirname, 'router-memory-hook.ts');
  const options = `${process.env['NODE_OPTIONS'] ?? ''} --expose-gc -r @swc-node/register -r ${hook}`.trim();
  const values: Record<string, string> = { ...settings, NODE_OPTIONS: options, BENCH_MEMORY_FILE: memoryFile() };
  const saved = Object.keys(values).map((name) => [name, process.env[name]] as const);
  Object.assign(process.env, values);
  return () => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

async function reading(pid: number): Promise<number> {
  const file = memoryFile();
  rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  await pollUntil(() => existsSync(file), { timeoutMs: 30_000, intervalMs: 20, description: 'router memory' });
  const usage = JSON.parse(readFileSync(file, 'utf8')) as NodeJS.MemoryUsage;
  return usage.heapUsed + usage.external;
}

/** The router's heap in use plus external memory (bytes) after a full GC: the median of {@link READINGS} readings. */
export async function routerMemory(pid: number): Promise<number> {
  const readings: number[] = [];
  for (let i = 0; i < READINGS; i += 1) readings.push(await reading(pid));
  readings.sort((a, b) => a - b);
  return readings[Math.floor(READINGS / 2)] ?? 0;
}
