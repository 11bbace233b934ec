// The job-router under benchmark, run as its own process (apps/job-router/src/main.ts, as in production), so the
// load generator and the benchmark's workers do not share its event loop.
import { join } from 'node:path';
import { getFreePort, pollUntil, type ProcessGroup, spawnProcessGroup, stopProcessGroup } from '@runplane/testing';

const REPO_ROOT = join(__dirname, '..', '..');

/** A running job-router process. */
export interface RouterProcess {
  base: string;
  pid: number;
  close(): Promise<void>;
}

/**
 * Starts a job-router with `env` on a free port and resolves once /readyz answers. With `cpuProfileDir` the process
 * writes a V8 CPU profile there when it exits (open it in Chrome DevTools or speedscope).
 */
export async function startRouterProcess(env: Record<string, string>, cpuProfileDir?: string): Promise<RouterProcess> {
  const port = await getFreePort();
  const profile = cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`] : [];
  const child: ProcessGroup = spawnProcessGroup(
    process.execPath,
    [...profile, '-r', '@swc-node/register', 'apps/job-router/src/main.ts'],
    { cwd: REPO_ROOT, env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' } },
  );
  const base = `http://127.0.0.1:${port}`;
  try {
    await pollUntil(async () => (await fetch(`${base}/readyz`)).ok, {
      timeoutMs: 60_000,
      intervalMs: 100,
      ignoreErrors: true,
      description: 'job-router ready',
    });
  } catch (error) {
    await stopProcessGroup(child, 1000);
    throw new Error(`the job-router did not start:\n${child.output()}`, { cause: error });
  }
  return {
    base,
    pid: child.pid,
    // SIGTERM lets the process shut down cleanly, which is also when V8 writes the CPU profile.
    close: () => stopProcessGroup(child, 10_000),
  };
}
