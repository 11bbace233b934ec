import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isProcessAlive, pollUntil, signalProcessGroup } from '@runplane/testing';
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

/** The Pods the local driver ever kept a record of in `stateDir` (one file each). */
function recordedPods(stateDir: string): string[] {
  try {
    return readdirSync(join(stateDir, 'workloads'))
      .filter((name) => name.endsWith('.json'))
      .map((name) => name.slice(0, -'.json'.length));
  } catch {
    return [];
  }
}

/**
 * Kills what is left of every workload the local driver started under `stateDir`, with its process group: a test's
 * backstop once the scheduler was asked to end them, so that no worker outlives its test file (the driver starts
 * workloads detached, to outlive a scheduler restart, so a scheduler killed mid-test leaves them running).
 */
export function killLeftoverWorkloads(stateDir: string): void {
  for (const podId of recordedPods(stateDir)) {
    // Each workload leads its own group; a group outlives its leader, so a child left behind is reached through it.
    for (const pid of workloadProcesses(podId)) signalProcessGroup(processGroupOf(pid) ?? pid, 'SIGKILL');
  }
}

/** The process group of `pid` (the fifth field of /proc/<pid>/stat, after the parenthesised name), or undefined. */
function processGroupOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const group = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
    return Number.isInteger(group) && group > 0 ? group : undefined;
  } catch {
    return undefined;
  }
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

/** How a test's load-balancing endpoint scales; it runs no worker at rest. */
export interface LbEndpointShape {
  workersMax: number;
  idleTimeout: number;
  scalerValue: number;
  /** The template's env (the worker's ports). */
  env?: Record<string, string>;
}

/** Creates a REQUEST_COUNT load-balancing endpoint whose workers run `server` with `node -e`; returns its id. */
export async function createLbEndpoint(p: PlatformHarness, server: string, shape: LbEndpointShape): Promise<string> {
  const { env, ...scaling } = shape;
  const template = await p.v1('POST', '/templates', {
    name: 'lb-worker',
    imageName: 'runplane/lb-worker:dev',
    isServerless: true,
    dockerEntrypoint: ['node'],
    dockerStartCmd: ['-e', server],
    ...(env ? { env } : {}),
  });
  expect(template.status).toBe(200);
  const endpoint = await p.v1('POST', '/endpoints', {
    name: 'lb',
    type: 'LOAD_BALANCER',
    templateId: (template.body as { id: string }).id,
    gpuTypeIds: ['NVIDIA GeForce RTX 4090'],
    workersMin: 0,
    scalerType: 'REQUEST_COUNT',
    ...scaling,
  });
  expect(endpoint.status).toBe(200);
  return (endpoint.body as { id: string }).id;
}
