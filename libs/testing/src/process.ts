import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';

/** A command started as the leader of its own process group, with its output captured. */
export interface ProcessGroup {
  pid: number;
  child: ChildProcess;
  /** What it wrote to stdout and stderr, up to its last {@link OUTPUT_KEPT} characters. */
  output(): string;
  /** Resolves with the exit code or signal once the leader has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Output kept per process: enough to show why a component failed, bounded for processes that run a whole test run. */
export const OUTPUT_KEPT = 1 << 20;

/** Starts a command as its own process group (like a shell job), so a signal can reach the whole tree. */
export function spawnProcessGroup(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string | undefined> },
): ProcessGroup {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`could not spawn ${command}`);
  let output = '';
  const collect = (chunk: Buffer): void => {
    output += chunk.toString('utf8');
    if (output.length > 2 * OUTPUT_KEPT) output = output.slice(-OUTPUT_KEPT);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return { pid: child.pid, child, output: () => output, exited };
}

/** Sends a signal to every process of a group; a group that is already gone is not an error. */
export function signalProcessGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** True while the pid names a live process (a zombie waiting to be reaped counts as gone). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}

/** Resolves true when something accepts TCP connections on host:port. */
export function isPortOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const done = (open: boolean): void => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function getFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** `count` distinct free ports. */
export async function getFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await getFreePort());
  return [...ports];
}

/**
 * Stops a process group for test cleanup: SIGTERM, then SIGKILL when the leader is still running
 * after `graceMs`. Resolves once the leader has exited.
 */
export async function stopProcessGroup(group: ProcessGroup, graceMs = 10_000): Promise<void> {
  if (group.child.exitCode !== null || group.child.signalCode !== null) {
    signalProcessGroup(group.pid, 'SIGKILL');
    return;
  }
  signalProcessGroup(group.pid, 'SIGTERM');
  const timer = setTimeout(() => signalProcessGroup(group.pid, 'SIGKILL'), graceMs);
  await group.exited;
  clearTimeout(timer);
}
