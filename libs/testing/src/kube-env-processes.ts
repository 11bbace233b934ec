import { get as httpsGet } from 'node:https';
import { recordRunProcess } from './kube-env-runs';
import { pollUntil } from './poll';
import { isProcessAlive, type ProcessGroup, signalProcessGroup, spawnProcessGroup, stopProcessGroup } from './process';

/** The processes of one control plane. */
export type KubeProcessName = 'etcd' | 'kube-apiserver' | 'kube-scheduler' | 'kube-controller-manager' | 'kwok';

/** A component exited while the control plane was starting; carries its output. */
export class ComponentExited extends Error {
  /** The component could not bind its port (picked free, then taken by someone else). */
  readonly portTaken: boolean;

  constructor(
    readonly component: string,
    group: ProcessGroup,
  ) {
    super(
      `${component} exited during start (exit code ${group.child.exitCode ?? group.child.signalCode})\n--- ${component} output ---\n${tail(group.output())}`,
    );
    this.portTaken = /address already in use/i.test(group.output());
  }
}

function tail(output: string): string {
  return output.length > 4000 ? `…${output.slice(-4000)}` : output;
}

/**
 * The process groups of one run, in start order. Each is recorded in the run folder (so a later
 * start can sweep them if this owner dies) and killed if the owner exits without stopping them.
 */
export class RunProcesses {
  private readonly started: [KubeProcessName, ProcessGroup][] = [];
  private readonly killOnExit = (): void =>
    this.started.forEach(([, group]) => signalProcessGroup(group.pid, 'SIGKILL'));

  constructor(
    private readonly dir: string,
    private readonly startTimeoutMs: number,
  ) {
    process.once('exit', this.killOnExit);
  }

  /** Starts a component in the run folder, with HOME there too so nothing reads the user's config. */
  spawn(name: KubeProcessName, binary: string, args: string[]): ProcessGroup {
    const group = spawnProcessGroup(binary, args, {
      cwd: this.dir,
      env: { PATH: process.env['PATH'], HOME: this.dir },
    });
    this.started.push([name, group]);
    recordRunProcess(this.dir, group.pid);
    return group;
  }

  /** Polls `probe` until it holds; fails at once, with the output, when any started process exits. */
  async waitHealthy(name: string, probe: () => Promise<boolean>): Promise<void> {
    try {
      await pollUntil(
        async () => {
          const dead = this.started.find(([, group]) => !isProcessAlive(group.pid));
          if (dead !== undefined) throw new ComponentExited(dead[0], dead[1]);
          return (await probe().catch(() => false)) || undefined;
        },
        { timeoutMs: this.startTimeoutMs, intervalMs: 100, description: `${name} to become healthy` },
      );
    } catch (err) {
      if (err instanceof ComponentExited) throw err;
      const group = this.started.find(([component]) => component === name)?.[1];
      throw new Error(`${(err as Error).message}\n--- ${name} output ---\n${tail(group?.output() ?? '')}`, {
        cause: err,
      });
    }
  }

  /** The running components by name. */
  byName(): Record<KubeProcessName, ProcessGroup> {
    return Object.fromEntries(this.started) as Record<KubeProcessName, ProcessGroup>;
  }

  /** Stops every process group in reverse start order (SIGTERM, SIGKILL after 5 s). */
  async stopAll(): Promise<void> {
    process.off('exit', this.killOnExit);
    for (const [, group] of [...this.started].reverse()) await stopProcessGroup(group, 5000);
  }
}

/** True when a plain-HTTP health endpoint answers 2xx. */
export async function httpOk(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
  await res.arrayBuffer();
  return res.ok;
}

/** Probes a component's own self-signed health endpoint on loopback (no secrets are sent). */
export function insecureLoopbackOk(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = httpsGet(url, { rejectUnauthorized: false, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
  });
}
