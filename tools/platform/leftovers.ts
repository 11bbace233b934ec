import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stopRecordedWorkloads } from '../../apps/scheduler/src/drivers/local/stop-recorded';
import { type LogFn, ServiceUnavailableError } from './services';
import { readPids } from './state';

/** What the runner needs to find and stop processes of an earlier run. */
export interface LeftoverOptions {
  stateDir: string;
  /** The scheduler's SCHEDULER_STATE_DIR, where the local driver keeps its pid files. */
  schedulerStateDir: string;
  graceMs: number;
  log: LogFn;
}

/** The command line of a live process, or undefined (gone, a zombie, or not ours to read). */
export function commandLine(pid: number): string | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return raw === '' ? undefined : raw.split('\0').join(' ').trim();
  } catch {
    if (process.platform === 'linux') return undefined;
  }
  try {
    // No /proc (macOS): ask ps; it fails when the pid does not exist.
    return execFileSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return commandLine(pid) !== undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function gone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/** SIGTERM, then SIGKILL after the grace period; resolves once the process is gone. */
export async function terminatePid(pid: number, graceMs: number): Promise<void> {
  const signal = (name: NodeJS.Signals): void => {
    try {
      process.kill(pid, name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  };
  signal('SIGTERM');
  if (await gone(pid, graceMs)) return;
  signal('SIGKILL');
  await gone(pid, 5_000);
}

/**
 * Processes of the run recorded in pids.json that still run as what was recorded (the command line guards against
 * a reused pid): apps by their entry point, services by their server binary.
 */
function leftoverProcesses(stateDir: string): Array<{ name: string; pid: number }> {
  const previous = readPids(stateDir);
  if (previous === undefined) return [];
  const runner = commandLine(previous.runner);
  if (previous.runner !== process.pid && runner?.includes(join('tools', 'platform', 'start')) === true) {
    throw new ServiceUnavailableError(`another npm start (pid ${previous.runner}) is using ${stateDir}; stop it first`);
  }
  const apps = Object.entries(previous.apps).filter(([name, pid]) =>
    commandLine(pid)?.includes(join('apps', name, 'src', 'main.ts')),
  );
  // A server by its binary and port (postgres -D <dir> -p <port>, redis-server 127.0.0.1:<port>), never another one.
  const services = Object.entries(previous.services).filter(([name, pid]) => {
    const line = commandLine(pid) ?? '';
    const port = previous.ports[name];
    const binary = name === 'postgres' ? 'postgres' : 'redis-server';
    return port !== undefined && line.includes(binary) && new RegExp(`[ :]${port}( |$)`).test(line);
  });
  return [...apps, ...services].map(([name, pid]) => ({ name, pid }));
}

/**
 * Stops what a runner that could not clean up (killed with SIGKILL, out of memory, a power cut of its terminal)
 * left running: its apps and servers, then the local workloads its scheduler started, so none keeps running
 * unowned (a worker whose job-router is gone retries forever). Throws when that runner is in fact still running.
 */
export async function stopLeftovers(options: LeftoverOptions): Promise<void> {
  const processes = leftoverProcesses(options.stateDir);
  if (processes.length > 0) {
    options.log(
      `stopping what an earlier run left running: ${processes.map((p) => `${p.name} (pid ${p.pid})`).join(', ')}`,
    );
    // Apps first: they hold connections to the servers.
    const isService = (name: string): boolean => name === 'postgres' || name === 'redis';
    await Promise.all(processes.filter((p) => !isService(p.name)).map((p) => terminatePid(p.pid, options.graceMs)));
    await Promise.all(processes.filter((p) => isService(p.name)).map((p) => terminatePid(p.pid, options.graceMs)));
  }
  const stopped = await stopRecordedWorkloads(options.schedulerStateDir, options.graceMs);
  if (stopped.length > 0) options.log(`stopped local workloads an earlier run left running: ${stopped.join(', ')}`);
}
