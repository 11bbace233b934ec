import type { SshKeysRepository } from '@runplane/accounts';
import type { CurrentSpendRepository } from '@runplane/billing';
import { NotFoundError, podListQuery } from '@runplane/contracts';
import type { EndpointsService } from '@runplane/endpoints';
import type { NetworkVolumesService, PodsService, RegistryAuthService, TemplatesService } from '@runplane/workloads';
import type { CatalogResolvers } from './catalog.resolvers';
import { accountFields } from './legacy-account';
import type { LegacyContext } from './legacy-context';
import { legacyEndpoint } from './legacy-endpoint';
import { accountMutations } from './legacy-account-mutations';
import { endpointMutations } from './legacy-endpoint-mutations';
import { podMutations } from './legacy-mutations';
import { registryMutations } from './legacy-registry-mutations';
import { templateMutations } from './legacy-template-mutations';
import { legacyPod } from './legacy-pod';
import { findTemplate, listTemplates, type PodTemplateFilter } from './legacy-template';

export type { LegacyContext } from './legacy-context';

/** The domain services the legacy GraphQL operations read and change (the ones v1 and v2 use). */
export interface LegacyServices {
  pods: PodsService;
  volumes: NetworkVolumesService;
  sshKeys: SshKeysRepository;
  catalog: CatalogResolvers;
  endpoints: EndpointsService;
  templates: TemplatesService;
  registryAuths: RegistryAuthService;
  spend: CurrentSpendRepository;
}

/** Turns "not found" into the `null` RunPod's GraphQL answers for a missing resource; other errors go on. */
async function orNull<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

/** The account's endpoints (no workers, no template), as RunPod's GraphQL lists them. */
async function listEndpoints(services: LegacyServices, accountId: string) {
  const [endpoints, pools, volumes] = await Promise.all([
    services.endpoints.list(accountId, { includeTemplate: false, includeWorkers: false }),
    services.catalog.poolOf(),
    services.volumes.list(accountId),
  ]);
  const lookups = { poolOf: pools, volumes: new Map(volumes.map((volume) => [volume.id, volume])) };
  return endpoints.map((endpoint) => legacyEndpoint(endpoint, lookups));
}

/**
 * The root value of the legacy schema: one function per top-level field, called by graphql-js with the field's
 * arguments and the request's LegacyContext. Nested fields that cost a read (`myself { pods }`) are functions too, so
 * only what the query selects is read.
 */
export function legacyRoot(services: LegacyServices) {
  const { pods, volumes, sshKeys, catalog } = services;
  const listQuery = podListQuery.parse({ includeMachine: 'true' });
  return {
    myself: (_args: unknown, { accountId }: LegacyContext) => ({
      id: accountId,
      ...accountFields(services.spend, accountId),
      pubKey: async () => (await sshKeys.list(accountId)).join('\n'),
      networkVolumes: () => volumes.list(accountId),
      endpoints: () => listEndpoints(services, accountId),
      podTemplates: () => listTemplates(services.templates, accountId, null),
      pods: async () => (await pods.list(accountId, listQuery)).map((pod) => legacyPod(pod, new Date())),
    }),
    pod: async ({ input }: { input: { podId: string } }, { accountId }: LegacyContext) => {
      const pod = await orNull(pods.get(accountId, input.podId, { includeMachine: true }));
      return pod === null ? null : legacyPod(pod, new Date());
    },
    gpuTypes: ({ input }: { input?: { id?: string | null; ids?: string[] | null } | null }) => catalog.gpuTypes(input),
    podTemplates: ({ input }: { input?: PodTemplateFilter | null }, { accountId }: LegacyContext) =>
      listTemplates(services.templates, accountId, input),
    podTemplate: ({ id }: { id: string }, { accountId }: LegacyContext) =>
      findTemplate(services.templates, accountId, id),
    dataCenters: () => catalog.dataCenters(),
    ...podMutations(pods),
    ...endpointMutations(services),
    ...accountMutations(sshKeys),
    ...templateMutations(services.templates),
    ...registryMutations(services.registryAuths),
    serverlessGpuPools: () => catalog.serverlessGpuPools(),
  };
}
