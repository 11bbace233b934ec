import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startKubeControlPlane } from './kube-env-launcher';
import { kubeBinaryPaths } from './kube-env-versions';

describe('startKubeControlPlane without built binaries', () => {
  const cache = mkdtempSync(path.join(tmpdir(), 'kube-cache-'));
  afterAll(() => rmSync(cache, { recursive: true, force: true }));

  it('names what is missing and how to build it', async () => {
    await expect(startKubeControlPlane({ binaries: kubeBinaryPaths(cache), baseDir: cache })).rejects.toThrow(
      new RegExp(
        `Kubernetes test environment not built \\(missing ${cache}/kubernetes-v[\\d.]+/bin/kube-apiserver.*npm run k8s:build`,
      ),
    );
  });
});
