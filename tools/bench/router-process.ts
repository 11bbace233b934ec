// The job-router under benchmark, run as its own process (apps/job-router/src/main.ts, or the build: see
// RouterLaunch), so the load generator and the benchmark's workers do not share its event loop.
import { getFreePort } from '@runplane/testing';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cpuProfileArgs, nodeScriptArgs, REPO_ROOT, startBenchProcess } from './bench-process';

/** A running job-router process. */
export interface RouterProcess {
  base: string;
  pid: number;
  close(): Promise<void>;
}

/**
 * How the job-router is started: through the SWC loader (`swc`, the default), or as deployed (`build`): `npm run
 * build`'s output with these V8 flags (e.g. the image's four) and this `NODE_OPTIONS` (the image's is
 * `--max-semi-space-size=2`).
 */
export type RouterLaunch = { mode: 'swc' } | { mode: 'build'; nodeFlags: string[]; nodeOptions: string };

/** The launch the runner's environment asks for: BENCH_ROUTER, BENCH_ROUTER_NODE_FLAGS, BENCH_ROUTER_NODE_OPTIONS. */
export function routerLaunchFrom(env: NodeJS.ProcessEnv): RouterLaunch {
  const { BENCH_ROUTER, BENCH_ROUTER_NODE_FLAGS, BENCH_ROUTER_NODE_OPTIONS } = env;
  if (BENCH_ROUTER === undefined || BENCH_ROUTER === 'swc') return { mode: 'swc' };
  if (BENCH_ROUTER !== 'build') throw new Error(`BENCH_ROUTER must be swc or build, not ${BENCH_ROUTER}`);
  const nodeFlags = (BENCH_ROUTER_NODE_FLAGS ?? '').split(/\s+/).filter((flag) => flag !== '');
  return { mode: 'build', nodeFlags, nodeOptions: BENCH_ROUTER_NODE_OPTIONS ?? '' };
}

function routerCommand(launch: RouterLaunch, cpuProfileDir?: string): { args: string[]; env: Record<string, string> } {
  if (launch.mode === 'swc') return { args: nodeScriptArgs('apps/job-router/src/main.ts', cpuProfileDir), env: {} };
  const script = 'dist/apps/job-router/main.js';
  if (!existsSync(join(REPO_ROOT, script))) throw new Error(`BENCH_ROUTER=build runs ${script}: npm run build first`);
  return {
    args: [...cpuProfileArgs(cpuProfileDir), ...launch.nodeFlags, script],
    env: { NODE_ENV: 'production', NODE_OPTIONS: launch.nodeOptions },
  };
}

/**
 * Starts a job-router with `env` on a free port and resolves once /readyz answers. With `cpuProfileDir` the process
 * writes a V8 CPU profile there when it exits (open it in Chrome DevTools or speedscope).
 */
export async function startRouterProcess(
  env: Record<string, string>,
  launch: RouterLaunch = { mode: 'swc' },
  cpuProfileDir?: string,
): Promise<RouterProcess> {
  const command = routerCommand(launch, cpuProfileDir);
  const port = await getFreePort();
  const base = `http://127.0.0.1:${port}`;
  const router = await startBenchProcess({
    name: 'the job-router',
    command: process.execPath,
    args: command.args,
    cwd: REPO_ROOT,
    env: { ...process.env, ...command.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    ready: async () => (await fetch(`${base}/readyz`)).ok,
    description: 'job-router ready',
  });
  return { base, pid: router.pid, close: router.stop };
}
