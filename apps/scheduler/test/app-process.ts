import { join, resolve } from 'node:path';
import { isPortOpen, pollUntil, type ProcessGroup, spawnProcessGroup } from '@runplane/testing';

/** The repository root: apps run from it, as `npm start` runs them. */
export const REPO_ROOT = resolve(__dirname, '..', '..', '..');

/** Runs one app from its sources in its own process group, with only PATH and HOME of this process's environment. */
export function startApp(name: string, env: Record<string, string>): ProcessGroup {
  return spawnProcessGroup(
    process.execPath,
    ['-r', '@swc-node/register', join(REPO_ROOT, 'apps', name, 'src', 'main.ts')],
    {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    },
  );
}

/** Polls `serving` until it holds; an app that exits first fails at once with its output. */
async function waitServing(
  group: ProcessGroup,
  name: string,
  description: string,
  serving: () => Promise<boolean | undefined>,
): Promise<void> {
  await pollUntil(
    async () => {
      if (group.child.exitCode !== null) throw new Error(`${name} exited early:\n${group.output()}`);
      return (await serving()) || undefined;
    },
    { timeoutMs: 120_000, intervalMs: 200, description },
  );
}

/** Resolves once the app accepts connections on `port`. */
export function waitForPort(group: ProcessGroup, port: number, name: string): Promise<void> {
  return waitServing(group, name, `${name} to listen on ${port}`, () => isPortOpen(port));
}

/** Resolves once the app's /readyz on `port` answers 2xx (the dependencies it checks are reachable). */
export function waitReady(group: ProcessGroup, port: number, name: string): Promise<void> {
  return waitServing(
    group,
    name,
    `${name} ready on ${port}`,
    async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.ok,
  );
}
