// The endpoints service's ports, adapted from the services and stores the gateway already has: templates, network
// volumes and Pods of the caller, and the endpoint's runtime data in Redis.
import { NotFoundError, podListQuery, type TemplateDto } from '@runplane/contracts';
import {
  type EndpointRuntimeData,
  type EndpointTemplateSource,
  type EndpointVolumeSource,
  type EndpointWorkerSource,
  WorkerStateStore,
} from '@runplane/endpoints';
import { purgeEndpointJobs } from '@runplane/jobs';
import type { Redis } from '@runplane/queue';
import type { NetworkVolumesService, PodsService, TemplatesService } from '@runplane/workloads';

/** Null instead of NotFoundError: the endpoints service words a missing reference as a bad field. */
async function orNull<T>(lookup: Promise<T>): Promise<T | null> {
  try {
    return await lookup;
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

/** Usable templates of the caller, or null. */
export function templateSource(templates: TemplatesService): EndpointTemplateSource {
  return {
    findUsable: (accountId, id): Promise<TemplateDto | null> => orNull(templates.findUsable(accountId, id)),
    findUsableMany: (accountId, ids) => templates.findUsableMany(accountId, ids),
    usableEnv: (accountId, template) => templates.usableEnv(accountId, template),
  };
}

/** Network volumes the caller owns, or null. */
export function volumeSource(volumes: NetworkVolumesService): EndpointVolumeSource {
  return { findOwned: (accountId, id) => orNull(volumes.findOwned(accountId, id)) };
}

/** Workers are the Pods carrying an endpointId; the pods API lists them with includeWorkers. */
export function workerSource(pods: PodsService): EndpointWorkerSource {
  const query = podListQuery.parse({ includeWorkers: true });
  return {
    async listWorkers(accountId, endpointIds) {
      const wanted = new Set(endpointIds);
      return (await pods.list(accountId, query)).filter((pod) => pod.endpointId !== null && wanted.has(pod.endpointId));
    },
  };
}

/**
 * An endpoint's Redis data: the job engine's queue, jobs and results, and the scheduler's worker states. Deleting
 * the endpoint removes them; workers still running one of its jobs get 404 when they report it, which ends it on
 * their side.
 */
export function runtimeData(redis: Redis): EndpointRuntimeData {
  const workerStates = new WorkerStateStore(redis);
  return {
    async purge(endpointId) {
      await purgeEndpointJobs(redis, endpointId);
      await workerStates.remove(endpointId);
    },
    async workerStates(endpointId) {
      const { workers, waiting } = await workerStates.read(endpointId);
      return { workers, waiting };
    },
  };
}
