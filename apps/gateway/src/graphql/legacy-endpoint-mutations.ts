import type { EndpointsService } from '@runplane/endpoints';
import type { NetworkVolumesService } from '@runplane/workloads';
import type { CatalogResolvers } from './catalog.resolvers';
import type { LegacyContext } from './legacy-context';
import { type EndpointLookups, legacyEndpoint } from './legacy-endpoint';
import { endpointInput, gpuIdsOfInput, gpuTypesOf, type LegacyEndpointInput } from './legacy-endpoint-input';

/** What the endpoint mutations use. */
export interface EndpointMutationServices {
  endpoints: EndpointsService;
  catalog: CatalogResolvers;
  volumes: NetworkVolumesService;
}

async function lookups(services: EndpointMutationServices, accountId: string): Promise<EndpointLookups> {
  const [poolOf, volumes] = await Promise.all([services.catalog.poolOf(), services.volumes.list(accountId)]);
  return { poolOf, volumes: new Map(volumes.map((volume) => [volume.id, volume])) };
}

/**
 * `saveEndpoint` (a new endpoint; replacing one by `id` is not served yet) and `updateEndpointTemplate`, over the
 * service `/v1/endpoints` uses: the same validation messages, and the endpoint scales and runs jobs as any other.
 */
export function endpointMutations(services: EndpointMutationServices) {
  const { endpoints, catalog } = services;
  return {
    saveEndpoint: async ({ input }: { input: LegacyEndpointInput }, { accountId }: LegacyContext) => {
      const gpuIds = gpuIdsOfInput(input);
      let gpuTypeIds: string[] | undefined;
      if (gpuIds) {
        const { pools, types } = await catalog.gpuTable();
        gpuTypeIds = gpuTypesOf(gpuIds, pools, types);
      }
      const created = await endpoints.create(accountId, endpointInput(input, gpuTypeIds));
      return legacyEndpoint(created, await lookups(services, accountId));
    },
    updateEndpointTemplate: async (
      { input }: { input: { templateId: string; endpointId: string } },
      { accountId }: LegacyContext,
    ) => {
      const updated = await endpoints.update(accountId, input.endpointId, { templateId: input.templateId });
      return legacyEndpoint(updated, await lookups(services, accountId));
    },
  };
}
