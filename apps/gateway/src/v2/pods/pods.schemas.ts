import {
  diskGb,
  envMap,
  imageRef,
  mountPath,
  portList,
  queryBoolean,
  refId,
  removableRefId,
  resourceName,
} from '@runplane/contracts';
import { z } from 'zod';
import { listResponseSchema, paginationQuery } from '../http/pagination';

/** RunPod's PodStatus: observed, except that a Pod stopped through the API is EXITED at once. */
export const POD_STATUSES = ['PROVISIONING', 'STARTING', 'RUNNING', 'EXITED', 'ERROR', 'TERMINATED'] as const;
/** A v2 Pod status. */
export type PodStatusV2 = (typeof POD_STATUSES)[number];
/** RunPod's PodAction (v1's reset has no v2 equivalent). */
export const POD_ACTIONS = ['start', 'stop', 'restart', 'terminate'] as const;
/** A v2 Pod action. */
export type PodActionV2 = (typeof POD_ACTIONS)[number];

const cudaVersion = z.string().regex(/^\d+\.\d+$/, 'must be major.minor, e.g. 12.8');
const args = z.string().max(32_768);

/** A host-local volume (RunPod's PersistentMount). */
const persistentMount = z.strictObject({ size: diskGb.min(10), path: mountPath });
/** A network volume and where it is mounted (RunPod's NetworkMount). */
const networkMount = z.strictObject({ volumeId: refId, path: mountPath });
/** RunPod's Mounts: at most one of `persistent` or `network` (checked by the service, a 400 as RunPod answers). */
const mounts = z.strictObject({
  persistent: persistentMount.optional(),
  network: z.array(networkMount).max(1).optional(),
});
/** Parsed mounts of a create or update. */
export type PodMountsInput = z.infer<typeof mounts>;

/** RunPod's CreateGpuConfig. */
const createGpu = z.strictObject({
  id: z.string().trim().min(1).max(191),
  count: z.number().int().min(1).max(64).default(1),
  allowedCudaVersions: z.array(cudaVersion).max(32).optional(),
  minCudaVersion: cudaVersion.optional(),
  minRamPerGpu: z.number().int().min(1).max(4096).optional(),
  minVcpuCountPerGpu: z.number().int().min(1).max(512).optional(),
});
/** RunPod's CreateCpuConfig. */
const createCpu = z.strictObject({
  id: z.string().trim().min(1).max(191),
  vcpuCount: z.number().int().min(2).max(512),
});

/** Body of `POST /v2/pods` (RunPod's CreatePodRequest); `image` is required unless `templateId` gives one. */
export const createPodRequest = z.strictObject({
  name: resourceName,
  image: imageRef.optional(),
  templateId: refId.optional(),
  args: args.optional(),
  disk: diskGb.min(1).optional(),
  env: envMap.optional(),
  ports: portList.optional(),
  registry: refId.nullable().optional(),
  cloud: z.enum(['SECURE', 'COMMUNITY']).default('SECURE'),
  gpu: createGpu.optional(),
  cpu: createCpu.optional(),
  dataCenterIds: z.array(z.string().trim().min(1).max(64)).max(64).optional(),
  globalNetworking: z.boolean().default(false),
  mounts: mounts.optional(),
  startJupyter: z.boolean().default(false),
  /**
   * The account's SSH keys in PUBLIC_KEY. Left out, RunPod's default applies: off, or the template's setting for a
   * Pod made from a template.
   */
  startSsh: z.boolean().optional(),
});
/** Parsed body of `POST /v2/pods`. */
export type CreatePodRequest = z.infer<typeof createPodRequest>;

/** Body of `PATCH /v2/pods/{id}` (RunPod's UpdatePodRequest): only the fields sent change. */
export const updatePodRequest = z.strictObject({
  name: resourceName.optional(),
  image: imageRef.optional(),
  args: args.optional(),
  disk: diskGb.min(1).optional(),
  env: envMap.optional(),
  ports: portList.optional(),
  registry: removableRefId.optional(),
  globalNetworking: z.boolean().optional(),
  locked: z.boolean().optional(),
  mounts: mounts.optional(),
  templateId: refId.optional(),
});
/** Parsed body of `PATCH /v2/pods/{id}`. */
export type UpdatePodRequest = z.infer<typeof updatePodRequest>;

/** Body of `POST /v2/pods/{id}/action`. */
export const podActionRequest = z.strictObject({ action: z.enum(POD_ACTIONS) });
/** Parsed body of `POST /v2/pods/{id}/action`. */
export type PodActionRequest = z.infer<typeof podActionRequest>;

/** Query of `GET /v2/pods`: pagination and RunPod's `includeClusterPods` (Runplane has no clusters). */
export const listPodsQuery = paginationQuery.extend({ includeClusterPods: queryBoolean });
/** Parsed query of `GET /v2/pods`. */
export type ListPodsQuery = z.infer<typeof listPodsQuery>;

const NO_GLOBAL_NETWORK = 'Not assigned: Runplane keeps the flag but runs no global network of its own';
const NO_TELEMETRY = 'Omitted: Runplane does not collect utilization';
const utilization = z.object({ util: z.number().int() });
const sshEndpoint = z.object({ host: z.string(), port: z.number().int(), username: z.string(), command: z.string() });
const runtimePort = z.object({
  private: z.number().int(),
  public: z.number().int().nullable(),
  type: z.string(),
  ip: z.string().nullable(),
});

/** A Pod as v2 returns it (RunPod's Pod), over the same row as v1's. */
export const podSchema = z.object({
  id: z.string(),
  name: z.string(),
  image: z.string(),
  args: z.string(),
  disk: z.number().int(),
  ports: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  registry: z.string().nullable(),
  status: z.enum(POD_STATUSES),
  actions: z.array(z.enum(POD_ACTIONS)),
  mounts: z.object({
    persistent: z.object({ size: z.number().int(), path: z.string() }).optional(),
    network: z.array(z.object({ volumeId: z.string(), path: z.string() })).optional(),
  }),
  gpu: z.object({ id: z.string(), count: z.number().int(), vcpuCount: z.number(), memory: z.number() }).optional(),
  cpu: z.object({ id: z.string(), vcpuCount: z.number().int(), memory: z.number().int() }).optional(),
  cloud: z.enum(['SECURE', 'COMMUNITY']),
  dataCenterId: z.string().nullable(),
  cudaVersion: z.string().nullable(),
  ssh: z.object({ proxy: sshEndpoint.nullable(), direct: sshEndpoint.nullable() }),
  template: z.string().nullable(),
  cost: z.number(),
  locked: z.boolean(),
  globalNetworking: z.object({
    enabled: z.boolean(),
    ip: z.string().optional().describe(NO_GLOBAL_NETWORK),
    internalDns: z.string().optional().describe(NO_GLOBAL_NETWORK),
  }),
  runtime: z
    .object({
      uptime: z.number().int(),
      ports: z.array(runtimePort),
      gpus: z
        .array(utilization.extend({ memoryUtil: z.number().int() }))
        .optional()
        .describe(NO_TELEMETRY),
      cpu: utilization.optional().describe(NO_TELEMETRY),
      memory: utilization.optional().describe(NO_TELEMETRY),
    })
    .nullable(),
  cluster: z
    .object({
      id: z.string(),
      rank: z.number().int().nullable(),
      role: z.string().optional(),
      ip: z.string().optional(),
    })
    .optional()
    .describe('Never set: Runplane has no clusters'),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
});
/** A v2 Pod. */
export type PodV2 = z.infer<typeof podSchema>;

/** `GET /v2/pods`: `{ pods, pagination }`. */
export const listPodsResponse = listResponseSchema('pods', podSchema);
/** A page of Pods. */
export type ListPodsResponse = z.infer<typeof listPodsResponse>;
