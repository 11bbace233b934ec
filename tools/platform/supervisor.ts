import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { childExited, type LogFn, terminateChild } from './services';

/** What to run under supervision. */
export interface ChildSpec {
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

/** Why supervision gave up on a child: it crashed `crashes` times within the crash window. */
export interface ChildFailure {
  name: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  crashes: number;
}

/** How a child that exits on its own is restarted, and when the supervisor stops trying. */
export interface RestartPolicy {
  /** Wait before the first restart; each further crash within the window doubles it (up to 5 minutes). */
  backoffMs: number;
  /** This many crashes of one child within `windowMs` and the supervisor gives up on it. */
  crashLimit: number;
  windowMs: number;
}

/** Settings of a Supervisor. */
export interface SupervisorOptions {
  log: LogFn;
  out: { stdout: Writable; stderr: Writable };
  /** SIGTERM first, SIGKILL after this long. */
  graceMs: number;
  /** Width the child names are padded to in prefixed output. */
  prefixWidth: number;
  restart: RestartPolicy;
  /** Clock for the crash window (tests pass their own). */
  now?: () => number;
}

const MAX_BACKOFF_MS = 300_000;

/** One supervised child: its spec, current process, recent crash times and any pending restart. */
interface Supervised {
  spec: ChildSpec;
  child: ChildProcess | undefined;
  crashes: number[];
  restartTimer: NodeJS.Timeout | undefined;
}

/**
 * Runs child processes with their output prefixed by name. A child that exits on its own is restarted after a
 * backoff while the others keep running; one that crashes `crashLimit` times within the window is reported once
 * (the caller decides to stop). `stopAll` stops them all (SIGTERM, then SIGKILL after the grace period).
 */
export class Supervisor {
  private readonly children = new Map<string, Supervised>();
  private stopping = false;
  private failureListener: ((failure: ChildFailure) => void) | undefined;
  private startListener: ((name: string, pid: number) => void) | undefined;
  private readonly now: () => number;

  constructor(private readonly options: SupervisorOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Called once, for the first child that crashed too often; that child is not restarted again. */
  onFailure(listener: (failure: ChildFailure) => void): void {
    this.failureListener = listener;
  }

  /** Called after every restart with the child's new pid. */
  onRestart(listener: (name: string, pid: number) => void): void {
    this.startListener = listener;
  }

  /** Spawns a child under supervision and returns its pid. */
  start(spec: ChildSpec): number {
    const entry: Supervised = { spec, child: undefined, crashes: [], restartTimer: undefined };
    this.children.set(spec.name, entry);
    return this.spawn(entry);
  }

  /** Pids of the running children by name. */
  pids(): Record<string, number> {
    const pids: Record<string, number> = {};
    for (const [name, { child }] of this.children) if (child?.pid !== undefined) pids[name] = child.pid;
    return pids;
  }

  /** Stops every child in parallel (and any pending restart); resolves once all have exited. */
  async stopAll(): Promise<void> {
    this.stopping = true;
    for (const entry of this.children.values()) clearTimeout(entry.restartTimer);
    const running = [...this.children.values()].flatMap(({ child }) => (child === undefined ? [] : [child]));
    await Promise.all(running.map((child) => terminateChild(child, this.options.graceMs)));
  }

  /** Resolves once every current child has exited, whoever stopped it. */
  async allExited(): Promise<void> {
    await Promise.all(
      [...this.children.values()].flatMap(({ child }) => (child === undefined ? [] : [childExited(child)])),
    );
  }

  private spawn(entry: Supervised): number {
    const { spec } = entry;
    const child = spawn(spec.command, spec.args, { cwd: spec.cwd, env: spec.env, stdio: ['ignore', 'pipe', 'pipe'] });
    // Without a listener a failed spawn's 'error' event would take the runner down.
    child.on('error', (error) => this.options.log(`${spec.name}: ${error.message}`));
    if (child.pid === undefined) throw new Error(`could not start ${spec.name}`);
    entry.child = child;
    const prefix = `${spec.name.padEnd(this.options.prefixWidth)} | `;
    this.pipe(child.stdout, this.options.out.stdout, prefix);
    this.pipe(child.stderr, this.options.out.stderr, prefix);
    child.once('exit', (code, signal) => this.exited(entry, child, code, signal));
    return child.pid;
  }

  private exited(entry: Supervised, child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.stopping || entry.child !== child) return;
    this.crashed(entry, `exited unexpectedly (${signal ?? `code ${code}`})`, { code, signal });
  }

  /** Counts a crash: schedules the restart, or gives up when the child crashed too often within the window. */
  private crashed(entry: Supervised, what: string, exit: { code: number | null; signal: NodeJS.Signals | null }): void {
    const name = entry.spec.name;
    const { crashLimit, windowMs, backoffMs } = this.options.restart;
    const now = this.now();
    entry.crashes = [...entry.crashes.filter((at) => now - at < windowMs), now];
    const crashes = entry.crashes.length;
    if (crashes >= crashLimit) {
      this.options.log(`${name} ${what}: ${crashes} crashes within ${windowMs} ms, giving up`);
      const listener = this.failureListener;
      this.failureListener = undefined;
      listener?.({ name, ...exit, crashes });
      return;
    }
    const delay = Math.min(backoffMs * 2 ** (crashes - 1), MAX_BACKOFF_MS);
    this.options.log(
      `${name} ${what}; restarting it in ${delay} ms (${crashes} of ${crashLimit} crashes within ${windowMs} ms)`,
    );
    entry.restartTimer = setTimeout(() => this.restart(entry), delay);
  }

  private restart(entry: Supervised): void {
    entry.restartTimer = undefined;
    if (this.stopping) return;
    let pid: number;
    try {
      pid = this.spawn(entry);
    } catch (error) {
      entry.child = undefined;
      this.crashed(entry, `could not be restarted (${error instanceof Error ? error.message : String(error)})`, {
        code: null,
        signal: null,
      });
      return;
    }
    this.options.log(`restarted ${entry.spec.name} (pid ${pid})`);
    this.startListener?.(entry.spec.name, pid);
  }

  private pipe(source: Readable | null, target: Writable, prefix: string): void {
    if (source === null) return;
    createInterface({ input: source, crlfDelay: Infinity }).on('line', (line) => target.write(`${prefix}${line}\n`));
  }
}
