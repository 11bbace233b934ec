import type { KubeControlPlane } from '@runplane/testing';
import { CONTROL_PLANE_KEY } from './jest-global-setup';

/** Global teardown of the jest `kube` project: stops the run's control plane and removes its folder. */
export default async function globalTeardown(): Promise<void> {
  const slot = globalThis as Record<symbol, KubeControlPlane | undefined>;
  await slot[CONTROL_PLANE_KEY]?.stop();
  slot[CONTROL_PLANE_KEY] = undefined;
}
