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

/** Why supervision ended early: a child exited while it was meant to be running. */
export interface ChildFailure {
  name: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * Runs child processes with their output prefixed by name, reports the first one that exits on
 * its own, and stops them all (SIGTERM, then SIGKILL after the grace period).
 */
export class Supervisor {
  private readonly children = new Map<string, ChildProcess>();
  private stopping = false;
  private failureListener: ((failure: ChildFailure) => void) | undefined;

  constructor(
    private readonly log: LogFn,
    private readonly out: { stdout: Writable; stderr: Writable },
    private readonly graceMs: number,
    private readonly prefixWidth: number,
  ) {}

  /** Called once, for the first child that exits while the supervisor is not stopping. */
  onFailure(listener: (failure: ChildFailure) => void): void {
    this.failureListener = listener;
  }

  /** Spawns a child and returns its pid. */
  start(spec: ChildSpec): number {
    const child = spawn(spec.command, spec.args, { cwd: spec.cwd, env: spec.env, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid === undefined) throw new Error(`could not start ${spec.name}`);
    this.children.set(spec.name, child);
    const prefix = `${spec.name.padEnd(this.prefixWidth)} | `;
    this.pipe(child.stdout, this.out.stdout, prefix);
    this.pipe(child.stderr, this.out.stderr, prefix);
    child.once('exit', (code, signal) => this.exited(spec.name, code, signal));
    return child.pid;
  }

  /** Pids of the running children by name. */
  pids(): Record<string, number> {
    const pids: Record<string, number> = {};
    for (const [name, child] of this.children) if (child.pid !== undefined) pids[name] = child.pid;
    return pids;
  }

  /** Stops every child in parallel; resolves once all have exited. */
  async stopAll(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.children.values()].map((child) => terminateChild(child, this.graceMs)));
  }

  /** Resolves once every child has exited, whoever stopped it. */
  async allExited(): Promise<void> {
    await Promise.all([...this.children.values()].map(childExited));
  }

  private exited(name: string, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.stopping) return;
    this.log(`${name} exited unexpectedly (${signal ?? `code ${code}`})`);
    const listener = this.failureListener;
    this.failureListener = undefined;
    listener?.({ name, code, signal });
  }

  private pipe(source: Readable | null, target: Writable, prefix: string): void {
    if (source === null) return;
    createInterface({ input: source, crlfDelay: Infinity }).on('line', (line) => target.write(`${prefix}${line}\n`));
  }
}
