import { readFileSync } from 'node:fs';

/** Marker put in every workload's environment, so a pid found in a record is known to still be that workload. */
export const WORKLOAD_MARKER = 'RUNPLANE_WORKLOAD_ID';

/** Sends a signal to a whole process group; a group already gone is not an error. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/**
 * True while `pid` is a live (non-zombie) process that carries this workload's marker. The marker check guards
 * against pid reuse after a reboot or a long downtime.
 */
export function isWorkloadAlive(pid: number, podId: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z') return false;
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
    return environ.split('\0').includes(`${WORKLOAD_MARKER}=${podId}`);
  } catch {
    // No /proc (not Linux): trust the signal check.
    return process.platform !== 'linux';
  }
}

/** Resolves once `check` is false or `timeoutMs` passed; returns whether it became false. */
export async function waitUntilGone(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (check()) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/** SIGTERM to the workload's process group, SIGKILL after `graceMs`; resolves once its leader is gone. */
export async function terminateWorkload(pid: number, podId: string, graceMs: number): Promise<void> {
  signalGroup(pid, 'SIGTERM');
  if (await waitUntilGone(() => isWorkloadAlive(pid, podId), graceMs)) return;
  signalGroup(pid, 'SIGKILL');
  await waitUntilGone(() => isWorkloadAlive(pid, podId), 5_000);
}
