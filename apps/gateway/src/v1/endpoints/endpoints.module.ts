import { Module } from '@nestjs/common';
import { CatalogRepository } from '@runplane/catalog';
import { NotFoundError, podListQuery, type TemplateDto } from '@runplane/contracts';
import type { DbClient } from '@runplane/db';
import {
  createEndpointsService,
  type EndpointRuntimeData,
  type EndpointTemplateSource,
  type EndpointVolumeSource,
  type EndpointWorkerSource,
  WorkerStateStore,
} from '@runplane/endpoints';
import { DB_CLIENT, REDIS_CLIENT } from '@runplane/http';
import { purgeEndpointJobs } from '@runplane/jobs';
import type { Redis } from '@runplane/queue';
import type { NetworkVolumesService, PodsService, TemplatesService } from '@runplane/workloads';
import { NetworkVolumesModule } from '../network-volumes/network-volumes.module';
import { NETWORK_VOLUMES_SERVICE } from '../network-volumes/network-volumes.tokens';
import { PodsModule } from '../pods/pods.module';
import { PODS_SERVICE } from '../pods/pods.tokens';
import { TemplatesModule } from '../templates/templates.module';
import { TEMPLATES_SERVICE } from '../templates/templates.tokens';
import { EndpointsController } from './endpoints.controller';
import { ENDPOINTS_SERVICE } from './endpoints.tokens';

/** Null instead of NotFoundError: the endpoints service words a missing reference as a bad field. */
async function orNull<T>(lookup: Promise<T>): Promise<T | null> {
  try {
    return await lookup;
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

function templateSource(templates: TemplatesService): EndpointTemplateSource {
  return { findUsable: (accountId, id): Promise<TemplateDto | null> => orNull(templates.findUsable(accountId, id)) };
}

function volumeSource(volumes: NetworkVolumesService): EndpointVolumeSource {
  return { findOwned: (accountId, id) => orNull(volumes.findOwned(accountId, id)) };
}

/** Workers are the Pods carrying an endpointId; the pods API lists them with includeWorkers. */
function workerSource(pods: PodsService): EndpointWorkerSource {
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
function runtimeData(redis: Redis): EndpointRuntimeData {
  const workerStates = new WorkerStateStore(redis);
  return {
    async purge(endpointId) {
      await purgeEndpointJobs(redis, endpointId);
      await workerStates.remove(endpointId);
    },
    async workerStates(endpointId) {
      return (await workerStates.read(endpointId)).workers;
    },
  };
}

/** `/v1/endpoints`: serverless endpoints built from templates, checked against the catalog and the caller's volumes; deleting one purges its jobs. */
@Module({
  imports: [TemplatesModule, NetworkVolumesModule, PodsModule],
  controllers: [EndpointsController],
  providers: [
    {
      provide: ENDPOINTS_SERVICE,
      inject: [DB_CLIENT, REDIS_CLIENT, TEMPLATES_SERVICE, NETWORK_VOLUMES_SERVICE, PODS_SERVICE],
      useFactory: (
        db: DbClient,
        redis: Redis,
        templates: TemplatesService,
        volumes: NetworkVolumesService,
        pods: PodsService,
      ) =>
        createEndpointsService(db, {
          catalog: new CatalogRepository(db),
          templates: templateSource(templates),
          volumes: volumeSource(volumes),
          workers: workerSource(pods),
          runtime: runtimeData(redis),
        }),
    },
  ],
  exports: [ENDPOINTS_SERVICE],
})
export class EndpointsModule {}
