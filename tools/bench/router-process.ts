// The job-router under benchmark, run as its own process (apps/job-router/src/main.ts, as in production), so the
// load generator and the benchmark's workers do not share its event loop.
import { getFreePort } from '@runplane/testing';
import { nodeScriptArgs, REPO_ROOT, startBenchProcess } from './bench-process';

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
  const base = `http://127.0.0.1:${port}`;
  const router = await startBenchProcess({
    name: 'the job-router',
    command: process.execPath,
    args: nodeScriptArgs('apps/job-router/src/main.ts', cpuProfileDir),
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    ready: async () => (await fetch(`${base}/readyz`)).ok,
    description: 'job-router ready',
  });
  return { base, pid: router.pid, close: router.stop };
}
