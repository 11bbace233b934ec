import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isProcessAlive } from '@runplane/testing';

/** The local driver's pid record of a Pod, or null. */
export function processRecord(stateDir: string, podId: string): { pid: number; phase: string; generation: number } | null {
  try {
    return JSON.parse(readFileSync(join(stateDir, 'workloads', `${podId}.json`), 'utf8')) as { pid: number; phase: string; generation: number };
  } catch {
    return null;
  }
}

/** Live processes on this machine that carry the Pod's workload marker (to prove there is exactly one). */
export function workloadProcesses(podId: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, 'utf8');
      if (environ.split('\0').includes(`RUNPLANE_WORKLOAD_ID=${podId}`) && isProcessAlive(Number(entry))) found.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours
    }
  }
  return found;
}
