import { coldStartDto, waitingReasonDto } from '@runplane/contracts';
import { z } from 'zod';
import { listResponseSchema } from '../http/pagination';

const FLASHBOOT = ['OFF', 'FLASHBOOT', 'PRIORITY_FLASHBOOT'] as const;
const cudaVersion = z.string().regex(/^\d+\.\d+$/, 'must be major.minor, e.g. 12.8');
const env = z.record(z.string().min(1).max(1024), z.string().max(32_768));

/** RunPod's ContainerConfig fields of an endpoint (a bound template holds them). */
const container = {
  image: z.string().min(1).max(512).optional(),
  args: z.string().max(16_384).optional(),
  disk: z.number().int().min(1).max(4096).optional(),
  ports: z
    .array(z.string().regex(/^[1-9]\d{0,4}\/(http|tcp|udp)$/, 'must be port/protocol, e.g. 8000/http'))
    .optional(),
  env: env.optional(),
  registry: z.string().min(1).nullable().optional(),
};

const queueDelay = z.strictObject({ type: z.literal('QUEUE_DELAY'), queueDelay: z.number().min(0.5).max(100_000) });
const requestCount = z.strictObject({
  type: z.literal('REQUEST_COUNT'),
  requestCount: z.number().int().min(1).max(100_000),
});
/** RunPod's EndpointScaling: the autoscaler's signal. */
export const scalingSchema = z.discriminatedUnion('type', [queueDelay, requestCount]);

const workers = z.strictObject({
  min: z.number().int().min(0).max(1000).optional(),
  max: z.number().int().min(0).max(1000).optional(),
  idleTimeout: z.number().int().min(1).max(3600).optional(),
});

const gpuFields = {
  excludedTypes: z.array(z.string().regex(/^\s*[^-\s]/, 'must be a GPU type id')).optional(),
  count: z.number().int().min(1).max(16).optional(),
  allowedCudaVersions: z.array(cudaVersion).optional(),
};
const cpuItem = z.strictObject({ id: z.string().min(1), vcpuCount: z.number().int().min(2).max(512) });

const endpointFields = {
  ...container,
  cpu: z.array(cpuItem).min(1).max(16).optional(),
  dataCenterIds: z.array(z.string().min(1)).max(128).optional(),
  flashboot: z.enum(FLASHBOOT).optional(),
  networkVolumes: z.array(z.string().min(1)).max(32).optional(),
  scaling: scalingSchema.optional(),
  templateId: z.string().min(1).optional(),
  timeout: z
    .number()
    .int()
    .min(1000)
    .max(7 * 24 * 3600 * 1000)
    .optional(),
  workers: workers.optional(),
};

/** Body of `POST /v2/serverless` (RunPod's CreateEndpointRequest). */
export const createEndpointRequest = z.strictObject({
  ...endpointFields,
  name: z.string().min(1).max(191),
  type: z.enum(['QUEUE', 'LOAD_BALANCER']),
  scaling: scalingSchema,
  gpu: z
    .strictObject({ ...gpuFields, pools: z.array(z.string().min(1)).min(1), minCudaVersion: cudaVersion.optional() })
    .optional(),
});
export type CreateEndpointRequest = z.infer<typeof createEndpointRequest>;

/** Body of `PATCH /v2/serverless/{id}` (RunPod's UpdateEndpointRequest): only the fields sent change. */
export const updateEndpointRequest = z.strictObject({
  ...endpointFields,
  name: z.string().min(1).max(191).optional(),
  gpu: z
    .strictObject({
      ...gpuFields,
      pools: z.array(z.string().min(1)).min(1).optional(),
      minCudaVersion: z.union([z.literal(''), cudaVersion]).optional(),
    })
    .optional(),
});
export type UpdateEndpointRequest = z.infer<typeof updateEndpointRequest>;

const queueUrls = z.object({
  run: z.string(),
  runSync: z.string(),
  status: z.string(),
  stream: z.string(),
  cancel: z.string(),
  retry: z.string(),
  purgeQueue: z.string(),
  health: z.string(),
});
const loadBalancerUrls = z.object({ base: z.string(), health: z.string() });

/** RunPod's Endpoint, as v2 answers it. */
export const endpointSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(['QUEUE', 'LOAD_BALANCER']),
  requestUrls: z.union([queueUrls, loadBalancerUrls]),
  image: z.string(),
  args: z.string(),
  disk: z.number().int(),
  ports: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  registry: z.string().nullable(),
  gpu: z
    .object({
      pools: z.array(z.string()),
      excludedTypes: z.array(z.string()),
      count: z.number().int(),
      allowedCudaVersions: z.array(z.string()),
      minCudaVersion: z.string().nullable(),
    })
    .nullable()
    .optional(),
  cpu: z.array(z.object({ id: z.string(), vcpuCount: z.number().int(), memory: z.number().int() })).optional(),
  workers: z.object({ min: z.number().int(), max: z.number().int(), idleTimeout: z.number().int().optional() }),
  scaling: z.union([
    z.object({ type: z.literal('QUEUE_DELAY'), queueDelay: z.number() }),
    z.object({ type: z.literal('REQUEST_COUNT'), requestCount: z.number().int() }),
  ]),
  dataCenterIds: z.array(z.string()),
  networkVolumes: z.array(z.string()),
  timeout: z.number().int(),
  flashboot: z.enum(FLASHBOOT),
  createdAt: z.string(),
});
export type EndpointView = z.infer<typeof endpointSchema>;

export const listEndpointsSchema = listResponseSchema('endpoints', endpointSchema);
export type ListEndpointsResponse = z.infer<typeof listEndpointsSchema>;

const WORKER_STATUSES = ['RUNNING', 'IDLE', 'INITIALIZING', 'THROTTLED', 'UNHEALTHY'] as const;
export type WorkerStatus = (typeof WORKER_STATUSES)[number];

/**
 * RunPod's Worker, with Runplane's `reason` (why an unhealthy or throttled worker does not serve) and `coldStart` (when
 * it reached each cold-start phase).
 */
export const workerSchema = z.object({
  id: z.string(),
  status: z.enum(WORKER_STATUSES),
  reason: z.string().optional(),
  isStale: z.boolean(),
  version: z.number().int().nullable(),
  gpuCount: z.number().int(),
  image: z.string().nullable(),
  uptimeSeconds: z.number().int().nullable(),
  gpuTypeId: z.string().nullable(),
  dataCenterId: z.string().nullable(),
  startedAt: z.string().nullable(),
  coldStart: coldStartDto.optional(),
});
export type WorkerView = z.infer<typeof workerSchema>;

export const listWorkersSchema = z.object({
  workers: z.array(workerSchema),
  summary: z.object({
    running: z.number().int(),
    idle: z.number().int(),
    initializing: z.number().int(),
    throttled: z.number().int(),
    unhealthy: z.number().int(),
    total: z.number().int(),
  }),
  endpointVersion: z.number().int().nullable(),
  /** Runplane's: why the endpoint's queued jobs wait (the same reason `/health` and `/status` give). */
  waitingReason: waitingReasonDto.optional(),
});
export type ListWorkersResponse = z.infer<typeof listWorkersSchema>;

/** RunPod's Release: one endpoint version and what changed from the previous one. */
export const releaseSchema = z.object({
  id: z.string(),
  version: z.number().int().nullable(),
  source: z.enum(['GIT_BUILD', 'MANUAL']),
  buildId: z.string().nullable(),
  createdByUserId: z.string().nullable(),
  workerCount: z.number().int(),
  createdAt: z.string(),
  diff: z.array(z.object({ field: z.string(), old: z.unknown(), new: z.unknown() })),
});
export type ReleaseView = z.infer<typeof releaseSchema>;

export const listReleasesSchema = z.object({
  endpointVersion: z.number().int().nullable(),
  rollout: z.object({
    inProgress: z.boolean(),
    workersOnLatest: z.number().int(),
    workersTotal: z.number().int(),
    percentOnLatest: z.number().int(),
  }),
  releases: z.array(releaseSchema),
});
export type ListReleasesResponse = z.infer<typeof listReleasesSchema>;
