import {
  type KubeControlPlane,
  prepareTestDatabases,
  startKubeControlPlane,
  TEST_KUBECONFIG_ENV,
} from '@runplane/testing';
import { ensureKubeBinaries } from './build';

/** Where the global setup leaves the running control plane for the global teardown (same process). */
export const CONTROL_PLANE_KEY = Symbol.for('runplane.kubeControlPlane');

const log = (line: string): void => void process.stderr.write(`[k8s] ${line}\n`);

/**
 * Global setup of the jest `kube` project (*.kube.spec.ts): builds the control-plane binaries if they
 * are missing (a cold build takes minutes; progress is printed), starts ONE control plane for the
 * whole run and hands its kubeconfig to the test workers through RUNPLANE_TEST_KUBECONFIG. Kube tests
 * may use databases too, so the template database is prepared as in the default project.
 */
export default async function globalSetup(): Promise<void> {
  const built = await ensureKubeBinaries({ log });
  if (built.length > 0) log(`built ${built.join(', ')}`);
  await prepareTestDatabases();
  const plane = await startKubeControlPlane({ log });
  process.env[TEST_KUBECONFIG_ENV] = plane.kubeconfigPath;
  (globalThis as Record<symbol, KubeControlPlane | undefined>)[CONTROL_PLANE_KEY] = plane;
}
