import type { PodsService } from '@runplane/workloads';
import { legacyPod } from './legacy-pod';
import { cpuPodInput, gpuPodInput, type LegacyPodInput } from './legacy-pod-input';
import type { LegacyContext } from './legacy-context';

interface PodIdInput {
  input: { podId: string; gpuCount?: number | null };
}

/**
 * The Pod mutations: create (GPU and CPU), stop, resume, terminate, over the PodsService `/v1/pods` uses, so the Pod is
 * the same on every surface and a mistake gets the REST routes' message. `startSsh: false` keeps the account's SSH
 * keys out of the Pod, as v2's `startSsh` does. A missing or other tenant's Pod is an error (a mutation has nothing
 * to answer null for), worded as the REST routes word it.
 */
export function podMutations(pods: PodsService) {
  const create = async (input: LegacyPodInput, body: ReturnType<typeof gpuPodInput>, accountId: string) =>
    legacyPod(await pods.create(accountId, body, { sshKeys: input.startSsh !== false }), new Date());
  return {
    podFindAndDeployOnDemand: ({ input }: { input: LegacyPodInput }, { accountId }: LegacyContext) =>
      create(input, gpuPodInput(input), accountId),
    deployCpuPod: ({ input }: { input: LegacyPodInput }, { accountId }: LegacyContext) =>
      create(input, cpuPodInput(input), accountId),
    podStop: async ({ input }: PodIdInput, { accountId }: LegacyContext) =>
      legacyPod(await pods.act(accountId, input.podId, 'stop'), new Date()),
    podResume: async ({ input }: PodIdInput, { accountId }: LegacyContext) =>
      legacyPod(await pods.act(accountId, input.podId, 'start'), new Date()),
    podTerminate: async ({ input }: PodIdInput, { accountId }: LegacyContext) => {
      await pods.delete(accountId, input.podId);
      return null;
    },
  };
}
