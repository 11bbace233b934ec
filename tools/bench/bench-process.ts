// The benchmark's server processes: each runs as its own process group with its output captured, so a stop reaches
// its whole tree and a start that fails shows what the process wrote.
import { join } from 'node:path';
import { getFreePort, pollUntil, spawnProcessGroup, stopProcessGroup } from '@runplane/testing';

/** The repository root, the working directory of the Node scripts the benchmarks start. */
export const REPO_ROOT = join(__dirname, '..', '..');

/** What {@link startBenchProcess} runs and how it tells the process is ready. */
export interface BenchProcessOptions {
  /** What is started, as the start error names it (e.g. "the job-router"). */
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  /** True once the process answers; a throw counts as "not yet". */
  ready: () => Promise<boolean>;
  /** Named in the readiness timeout. */
  description: string;
  /** Give up on `ready` after this long (default 60 s). */
  timeoutMs?: number;
  /** Wait between `ready` attempts (default 100 ms). */
  intervalMs?: number;
  /** SIGTERM-to-SIGKILL grace when the start fails (default 1 s). */
  failGraceMs?: number;
}

/** A started process group. */
export interface BenchProcess {
  pid: number;
  /**
   * SIGTERM to the group, SIGKILL after 10 s; resolves once the leader has exited. SIGTERM lets the process shut down
   * cleanly, which is also when V8 writes a CPU profile.
   */
  stop(): Promise<void>;
}

/** Node arguments that write a V8 CPU profile to `cpuProfileDir` on exit (none without one). */
export function cpuProfileArgs(cpuProfileDir?: string): string[] {
  return cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`] : [];
}

/** Node arguments that run `script` through @swc-node/register, writing a V8 CPU profile to `cpuProfileDir` on exit. */
export function nodeScriptArgs(script: string, cpuProfileDir?: string): string[] {
  return [...cpuProfileArgs(cpuProfileDir), '-r', '@swc-node/register', script];
}

/**
 * Starts `command` as its own process group and resolves once `ready` holds. When it does not within the timeout,
 * stops the group and throws with the process's output.
 */
export async function startBenchProcess(options: BenchProcessOptions): Promise<BenchProcess> {
  const group = spawnProcessGroup(options.command, options.args, { cwd: options.cwd, env: options.env });
  try {
    await pollUntil(options.ready, {
      timeoutMs: options.timeoutMs ?? 60_000,
      intervalMs: options.intervalMs ?? 100,
      ignoreErrors: true,
      description: options.description,
    });
  } catch (error) {
    await stopProcessGroup(group, options.failGraceMs ?? 1000);
    throw new Error(`${options.name} did not start:\n${group.output()}`, { cause: error });
  }
  return { pid: group.pid, stop: () => stopProcessGroup(group, 10_000) };
}

/** A server process under load. */
export interface ServerProcess {
  base: string;
  pid: number;
  close(): Promise<void>;
}

/**
 * Starts `script` (relative to the repository) with `env` on a free port and resolves once /healthz answers. With
 * `cpuProfileDir` the process writes a V8 CPU profile there when it exits.
 */
export async function startServer(
  script: string,
  env: Record<string, string>,
  cpuProfileDir?: string,
): Promise<ServerProcess> {
  const port = await getFreePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await startBenchProcess({
    name: script,
    command: process.execPath,
    args: nodeScriptArgs(script, cpuProfileDir),
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    ready: async () => (await fetch(`${base}/healthz`)).ok,
    description: `${script} ready`,
  });
  return { base, pid: server.pid, close: server.stop };
}
