import { loadNodePools, registerNodePools, startKubeControlPlane } from '@runplane/testing';
import { ensureKubeBinaries } from './build';

/** Pool label of the nodes `--pools` registers. */
const MANUAL_POOL = 'manual';

/**
 * `npm run k8s:up [-- --pools]`: starts a throw-away control plane (etcd, kube-apiserver,
 * kube-scheduler, kwok) in the foreground for manual use, prints its kubeconfig path and stops it on
 * Ctrl-C. With --pools it also registers the default node pools (tools/k8s-testenv/pools.yaml).
 */
async function main(): Promise<void> {
  await ensureKubeBinaries();
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const plane = await startKubeControlPlane({ log });
  if (process.argv.includes('--pools')) {
    const nodes = await registerNodePools(plane.kubeconfigPath, loadNodePools(), { poolLabel: MANUAL_POOL });
    log(`registered ${nodes.length} kwok nodes (runplane.io/node-pool=${MANUAL_POOL})`);
  }
  process.stdout.write(
    `\nKubernetes ${plane.version} is up.\n  export KUBECONFIG=${plane.kubeconfigPath}\nPress Ctrl-C to stop.\n`,
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
