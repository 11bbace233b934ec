import { type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** A Postgres or Redis the platform uses, and how to let it go when the runner stops. */
export interface ResolvedService {
  url: string;
  /** env = given by the user, local = found on the default port, spawned/embedded = started by the runner. */
  source: 'env' | 'local' | 'spawned' | 'embedded';
  /** Pid of a server the runner started itself. */
  pid?: number;
  stop(): Promise<void>;
}

/** Raised when a required backing service is neither configured, reachable nor startable. */
export class ServiceUnavailableError extends Error {}

/** Runner log line writer (prefixing is the caller's business). */
export type LogFn = (message: string) => void;

/** Returns the absolute path of an executable found on `searchPath`, or undefined. */
export function findExecutable(name: string, searchPath: string): string | undefined {
  for (const dir of searchPath.split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory; keep looking
    }
  }
  return undefined;
}

/** Resolves once the child has exited (immediately when it already has). */
export function childExited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Sends SIGTERM, then SIGKILL when the child outlives the grace period; resolves on exit. */
export async function terminateChild(child: ChildProcess, graceMs: number): Promise<void> {
  const exited = childExited(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** A service the runner did not start and so leaves running. */
export function externalService(url: string, source: 'env' | 'local'): ResolvedService {
  return { url, source, stop: () => Promise.resolve() };
}
