import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  getFreePorts,
  isProcessAlive,
  KUBE_TEST_VERSIONS,
  KubeTestClient,
  startKubeControlPlane,
} from '@runplane/testing';

describe('startKubeControlPlane', () => {
  const runs = mkdtempSync(path.join(tmpdir(), 'kube-launcher-'));
  afterAll(() => rmSync(runs, { recursive: true, force: true }));

  it('starts a second, independent control plane on free ports and stops every process of it', async () => {
    const plane = await startKubeControlPlane({ baseDir: runs });
    const pids = Object.values(plane.processes).map((group) => group.pid);
    try {
      expect(Object.keys(plane.processes).sort()).toEqual([
        'etcd',
        'kube-apiserver',
        'kube-controller-manager',
        'kube-scheduler',
        'kwok',
      ]);
      expect(pids.every(isProcessAlive)).toBe(true);
      expect(plane.version).toBe(KUBE_TEST_VERSIONS.kubernetes);
      expect(plane.connection.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(plane.kubeconfigPath.startsWith(plane.dir)).toBe(true);
      const namespaces = await new KubeTestClient(plane.connection).get<{ items: { metadata: { name: string } }[] }>(
        '/api/v1/namespaces',
      );
      expect(namespaces.items.map((ns) => ns.metadata.name)).toContain('kube-system');
      const storageClass = await new KubeTestClient(plane.connection).get<{ provisioner: string }>(
        '/apis/storage.k8s.io/v1/storageclasses/kwok-volume',
      );
      expect(storageClass.provisioner).toBe('kwok.x-k8s.io/volume');
    } finally {
      await plane.stop();
    }
    expect(pids.filter(isProcessAlive)).toEqual([]);
    expect(existsSync(plane.dir)).toBe(false);
  });

  it('starts again on other ports when a picked port was taken in the meantime', async () => {
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const taken = (squatter.address() as AddressInfo).port;
    const picks: number[][] = [];
    const pickPorts = async (count: number): Promise<number[]> => {
      const ports = await getFreePorts(count);
      if (picks.length === 0) ports[0] = taken; // etcd's client port, first attempt only
      picks.push(ports);
      return ports;
    };
    const messages: string[] = [];
    try {
      const plane = await startKubeControlPlane({ baseDir: runs, pickPorts, log: (line) => messages.push(line) });
      await plane.stop();
    } finally {
      squatter.close();
    }
    expect(picks).toHaveLength(2);
    expect(messages).toContain('etcd found its port taken; starting again on other ports');
  });
});
