import { startKubeControlPlane } from '@runplane/testing';
import { ensureKubeBinaries } from './build';

/**
 * `npm run k8s:up`: starts a throw-away control plane (etcd, kube-apiserver, kube-scheduler, kwok)
 * in the foreground for manual use, prints its kubeconfig path and stops it on Ctrl-C.
 */
async function main(): Promise<void> {
  await ensureKubeBinaries();
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const plane = await startKubeControlPlane({ log });
  process.stdout.write(
    `\nKubernetes ${plane.version} is up.\n  export KUBECONFIG=${plane.kubeconfigPath}\n` +
      'Register the default node pools from a test with registerNodePools(). Press Ctrl-C to stop.\n',
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  log('stopping the control plane');
  await plane.stop();
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
