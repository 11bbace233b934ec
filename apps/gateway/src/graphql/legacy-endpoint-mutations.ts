import { ENDPOINT_CPU_FLAVOR_IDS } from '@runplane/contracts';
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

const isCpuFlavor = (id: string): id is (typeof ENDPOINT_CPU_FLAVOR_IDS)[number] =>
  (ENDPOINT_CPU_FLAVOR_IDS as readonly string[]).includes(id);

/** The `EndpointCreateInput` an input stands for: its `gpuIds` resolved to catalog GPU types. */
async function createBody(services: EndpointMutationServices, input: LegacyEndpointInput) {
  const gpuIds = gpuIdsOfInput(input);
  let gpuTypeIds: string[] | undefined;
  if (gpuIds) {
    const { pools, types } = await services.catalog.gpuTable();
    gpuTypeIds = gpuTypesOf(gpuIds, pools, types);
  }
  return endpointInput(input, gpuTypeIds);
}

/**
 * `saveEndpoint` with an `id`: RunPod's full replace, where every setting the input leaves out takes its default (the
 * defaults and checks of create). The GraphQL input names no CPU flavors, so a CPU endpoint keeps its own.
 */
async function replaceEndpoint(services: EndpointMutationServices, accountId: string, input: LegacyEndpointInput) {
  const id = input.id ?? '';
  const current = await services.endpoints.get(accountId, id, { includeTemplate: false, includeWorkers: false });
  const body = await createBody(services, input);
  const cpuFlavorIds = current.cpuFlavorIds.filter(isCpuFlavor);
  const cpu = current.computeType === 'CPU' ? { cpuFlavorIds, vcpuCount: current.vcpuCount } : {};
  return services.endpoints.replace(accountId, id, { ...cpu, ...body });
}

/**
 * `saveEndpoint` (without `id` a new endpoint, with `id` a full replace of the caller's endpoint) and
 * `updateEndpointTemplate`, over the service `/v1/endpoints` uses: the same validation messages, the same version
 * rule (a new template is a new version), and the endpoint scales and runs jobs as any other.
 */
export function endpointMutations(services: EndpointMutationServices) {
  const { endpoints } = services;
  return {
    saveEndpoint: async ({ input }: { input: LegacyEndpointInput }, { accountId }: LegacyContext) => {
      const saved =
        input.id === undefined || input.id === null
          ? await endpoints.create(accountId, await createBody(services, input))
          : await replaceEndpoint(services, accountId, input);
      return legacyEndpoint(saved, await lookups(services, accountId));
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
