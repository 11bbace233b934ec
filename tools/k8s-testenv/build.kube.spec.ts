import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KUBE_TEST_VERSIONS, kubeBinaryPaths, kubeComponentDir, type KwokStagesManifest } from '@runplane/testing';
import { ensureKubeBinaries } from './build';

describe('npm run k8s:build', () => {
  const cache = mkdtempSync(path.join(tmpdir(), 'kube-cache-'));
  afterAll(() => rmSync(cache, { recursive: true, force: true }));
  const quiet = (): void => undefined;

  it('builds nothing when every binary reports its pinned version', async () => {
    expect(await ensureKubeBinaries({ log: quiet })).toEqual([]);
  });

  it('rebuilds only the component whose binary reports another version', async () => {
    // The kube project's setup built the real cache; borrow its kubernetes, kwok, helm and promtool folders.
    for (const component of ['kubernetes', 'kwok', 'helm', 'promtool'] as const)
      symlinkSync(kubeComponentDir(component), kubeComponentDir(component, cache));
    const staleEtcd = kubeBinaryPaths(cache).etcd;
    mkdirSync(path.dirname(staleEtcd), { recursive: true });
    writeFileSync(staleEtcd, '#!/bin/sh\necho "etcd Version: 3.5.0"\n');
    chmodSync(staleEtcd, 0o755);

    expect(await ensureKubeBinaries({ cacheRoot: cache, log: quiet })).toEqual(['etcd']);
    expect(execFileSync(staleEtcd, ['--version'], { encoding: 'utf8' })).toContain(
      `etcd Version: ${KUBE_TEST_VERSIONS.etcd.slice(1)}`,
    );
  });

  it('builds only the binary a component lacks and keeps the ones it has', async () => {
    const own = mkdtempSync(path.join(tmpdir(), 'kube-cache-'));
    try {
      for (const component of ['etcd', 'kwok', 'helm', 'promtool'] as const)
        symlinkSync(kubeComponentDir(component), kubeComponentDir(component, own));
      // A cache from before kube-controller-manager joined the kubernetes component: its other binaries.
      const bin = path.join(kubeComponentDir('kubernetes', own), 'bin');
      mkdirSync(bin, { recursive: true });
      for (const name of ['kube-apiserver', 'kube-scheduler'])
        copyFileSync(path.join(kubeComponentDir('kubernetes'), 'bin', name), path.join(bin, name));
      const inode = (name: string): number => statSync(path.join(bin, name)).ino;
      const kept = { apiserver: inode('kube-apiserver'), scheduler: inode('kube-scheduler') };

      expect(await ensureKubeBinaries({ cacheRoot: own, log: quiet })).toEqual(['kubernetes']);
      expect({ apiserver: inode('kube-apiserver'), scheduler: inode('kube-scheduler') }).toEqual(kept);
      const built = kubeBinaryPaths(own).kubeControllerManager;
      expect(execFileSync(built, ['--version'], { encoding: 'utf8' })).toContain(
        `Kubernetes ${KUBE_TEST_VERSIONS.kubernetes}`,
      );
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('rewrites an outdated kwok stage manifest without rebuilding kwok', async () => {
    const own = mkdtempSync(path.join(tmpdir(), 'kube-cache-'));
    try {
      for (const component of ['kubernetes', 'etcd', 'helm', 'promtool'] as const)
        symlinkSync(kubeComponentDir(component), kubeComponentDir(component, own));
      mkdirSync(kubeComponentDir('kwok', own));
      symlinkSync(path.join(kubeComponentDir('kwok'), 'bin'), path.join(kubeComponentDir('kwok', own), 'bin'));
      const manifestFile = kubeBinaryPaths(own).kwokStagesManifest;
      writeFileSync(manifestFile, '[]\n');

      expect(await ensureKubeBinaries({ cacheRoot: own, log: quiet })).toEqual([]);
      const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as KwokStagesManifest;
      expect(manifest.stages.map((file) => path.basename(file))).toEqual(
        expect.arrayContaining([
          'node-initialize.yaml',
          'node-heartbeat.yaml',
          'node-not-ready.yaml',
          'pod-ready.yaml',
          'pod-delete.yaml',
          'pvc-provision.yaml',
        ]),
      );
      expect(manifest.objects.map((file) => path.basename(file))).toEqual(['storage-class.yaml']);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });
});
