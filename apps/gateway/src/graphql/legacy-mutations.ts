import { ValidationError } from '@runplane/contracts';
import type { PodsService } from '@runplane/workloads';
import { legacyPod } from './legacy-pod';
import { cpuPodInput, gpuPodInput, type LegacyPodInput } from './legacy-pod-input';
import type { LegacyContext } from './legacy-context';

interface PodIdInput {
  input: { podId: string; gpuCount?: number | null };
}

interface PodBidInput {
  input: { podId: string; bidPerGpu: number; gpuCount?: number | null };
}

/**
 * `podBidResume`: Runplane's interruptible Pods have a fixed spot price instead of an auction, so a bid is a ceiling.
 * A bid at or above the Pod's spot price per GPU resumes it at that price (never more than the bid); a lower bid, or a
 * bid on an on-demand Pod, is refused and changes nothing.
 */
async function bidResume(pods: PodsService, accountId: string, { podId, bidPerGpu }: PodBidInput['input']) {
  if (!(bidPerGpu > 0)) throw new ValidationError('bidPerGpu: must be greater than 0');
  const pod = await pods.get(accountId, podId);
  if (!pod.interruptible)
    throw new ValidationError(`podId: Pod ${podId} is on-demand, not interruptible; resume it with podResume`);
  const spotPerGpu = Math.round((pod.costPerHr / Math.max(pod.gpuCount, 1)) * 10_000) / 10_000;
  if (bidPerGpu < spotPerGpu)
    throw new ValidationError(`bidPerGpu: ${bidPerGpu} is below the Pod's spot price of ${spotPerGpu} per GPU`);
  return pods.act(accountId, podId, 'start');
}

/**
 * The Pod mutations: create (GPU and CPU), stop, resume (on demand or with a bid), terminate, over the PodsService `/v1/pods` uses, so the Pod is
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
    podBidResume: async ({ input }: PodBidInput, { accountId }: LegacyContext) =>
      legacyPod(await bidResume(pods, accountId, input), new Date()),
    podTerminate: async ({ input }: PodIdInput, { accountId }: LegacyContext) => {
      await pods.delete(accountId, input.podId);
      return null;
    },
  };
}
