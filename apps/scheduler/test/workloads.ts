import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isProcessAlive, pollUntil } from '@runplane/testing';
import type { ProcessRecord } from '../src/drivers/local/process-records';
import type { PlatformHarness } from './harness';

/** The local driver's pid record of a Pod, or null. */
export function processRecord(stateDir: string, podId: string): ProcessRecord | null {
  try {
    return JSON.parse(readFileSync(join(stateDir, 'workloads', `${podId}.json`), 'utf8')) as ProcessRecord;
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
      if (environ.split('\0').includes(`RUNPLANE_WORKLOAD_ID=${podId}`) && isProcessAlive(Number(entry)))
        found.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours
    }
  }
  return found;
}

/** The pid of the Pod's workload, once its record says RUNNING and that process lives. */
export function runningPid(stateDir: string, podId: string, description: string): Promise<number> {
  return pollUntil(
    () => {
      const record = processRecord(stateDir, podId);
      return record?.phase === 'RUNNING' && isProcessAlive(record.pid) ? record.pid : undefined;
    },
    { timeoutMs: 20_000, description },
  );
}

/** Creates a Pod whose process only sleeps; resolves once it runs and its pod.started event is published. */
export async function runningPod(p: PlatformHarness, name: string): Promise<{ id: string; pid: number }> {
  const created = await p.v1('POST', '/pods', {
    name,
    imageName: 'runplane/sleeper:1',
    gpuTypeIds: ['NVIDIA H100 80GB HBM3'],
    gpuCount: 1,
    dockerEntrypoint: ['node'],
    dockerStartCmd: ['-e', 'setInterval(() => {}, 1000)'],
  });
  const id = (created.body as { id: string }).id;
  const pid = await runningPid(p.stateDir, id, `${name} to run`);
  await pollUntil(async () => (await p.usageEvents()).has(`${id}:started:1`) || undefined, {
    timeoutMs: 10_000,
    description: 'started event',
  });
  return { id, pid };
}
