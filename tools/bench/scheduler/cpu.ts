// Where a scheduler bench phase's time goes on a machine whose cores every party shares: CPU by process, and the
// requests kube-apiserver served.
import { readdirSync, readFileSync } from 'node:fs';
import type { KubeControlPlane, KubeTestClient } from '@runplane/testing';
import { processCpuMs } from '../cpu-meter';

/** CPU ms of every postgres process on this machine (the server is shared; other databases add noise). */
function postgresCpuMs(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') total += processCpuMs(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** CPU by party, to show where a phase's time goes on a machine whose cores all of them share. */
export type CpuByParty = Record<
  'runplane' | 'kube-apiserver' | 'etcd' | 'kube-scheduler' | 'kwok' | 'postgres',
  number
>;

/** CPU ms so far of each party. */
export function cpuSnapshot(plane: KubeControlPlane): CpuByParty {
  const own = process.cpuUsage();
  return {
    runplane: (own.user + own.system) / 1000,
    'kube-apiserver': processCpuMs(plane.processes['kube-apiserver'].pid),
    etcd: processCpuMs(plane.processes.etcd.pid),
    'kube-scheduler': processCpuMs(plane.processes['kube-scheduler'].pid),
    kwok: processCpuMs(plane.processes.kwok.pid),
    postgres: postgresCpuMs(),
  };
}

/** CPU ms each party spent between two snapshots, per pod. */
export function perPod(before: CpuByParty, after: CpuByParty, pods: number): CpuByParty {
  return Object.fromEntries(
    Object.entries(after).map(([party, ms]) => [
      party,
      Number(((ms - before[party as keyof CpuByParty]) / pods).toFixed(2)),
    ]),
  ) as CpuByParty;
}

/** Runs `phase` and returns the CPU each party spent meanwhile, per pod. */
export async function withCpu<T>(
  plane: KubeControlPlane,
  pods: number,
  phase: () => Promise<T>,
): Promise<{ result: T; cpuMsPerPod: CpuByParty }> {
  const before = cpuSnapshot(plane);
  const result = await phase();
  return { result, cpuMsPerPod: perPod(before, cpuSnapshot(plane), pods) };
}

/** kube-apiserver's request counter by `verb resource` (its /metrics), to show what each phase asked of it. */
async function apiserverRequests(client: KubeTestClient): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const line of (await client.text('/metrics')).split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const verb = /verb="([^"]*)"/.exec(line)?.[1] ?? '';
    const resource = /resource="([^"]*)"/.exec(line)?.[1] ?? '';
    const subresource = /subresource="([^"]*)"/.exec(line)?.[1];
    const key = `${verb} ${resource}${subresource ? `/${subresource}` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return counts;
}

/**
 * Runs `phase` and returns the requests kube-apiserver served meanwhile, per pod: by `verb resource`, busiest first
 * (`perPod`), and all of them together (`totalPerPod`).
 */
export async function withRequests<T>(
  client: KubeTestClient,
  pods: number,
  phase: () => Promise<T>,
): Promise<{ result: T; perPod: string; totalPerPod: number }> {
  const before = await apiserverRequests(client);
  const result = await phase();
  const after = await apiserverRequests(client);
  const counts = [...after].map(([key, count]): [string, number] => [key, (count - (before.get(key) ?? 0)) / pods]);
  const perPod = counts
    .filter(([, count]) => count >= 0.01)
    .sort((a, b) => b[1] - a[1])
    .map(([key, count]) => `${key} ${count.toFixed(2)}`)
    .join(', ');
  return { result, perPod, totalPerPod: counts.reduce((sum, [, count]) => sum + count, 0) };
}
