import { z } from 'zod';
import { waitingReasonDto } from '../waiting';
import {
  catalogId,
  COMPUTE_TYPES,
  CUDA_VERSIONS,
  ENDPOINT_CPU_FLAVOR_IDS,
  queryBoolean,
  refId,
  resourceName,
  SCALER_TYPES,
} from './common';
import { podDto } from './pods';
import { templateDto } from './templates';

/** Largest workersMax an endpoint may ask for; the scheduler's capacity is the real limit. */
export const MAX_ENDPOINT_WORKERS = 1000;
/** Longest a single job may run: 7 days in milliseconds (fits the database's 32-bit column). */
export const MAX_EXECUTION_TIMEOUT_MS = 7 * 24 * 3600 * 1000;

const gpuTypeIds = z.array(catalogId).max(64);
const dataCenterIds = z.array(catalogId).max(128);
const networkVolumeIds = z.array(refId).max(32);
const workers = z.number().int().min(0).max(MAX_ENDPOINT_WORKERS);

/** How an endpoint is called: jobs through the queue, or HTTP straight to its workers (RunPod v2's EndpointType). */
export const ENDPOINT_TYPES = ['QUEUE', 'LOAD_BALANCER'] as const;
/** One of {@link ENDPOINT_TYPES}. */
export type EndpointType = (typeof ENDPOINT_TYPES)[number];
const TYPE_DESCRIPTION =
  "Runplane extension (RunPod v2's EndpointType): QUEUE (default) takes jobs at /v2/<id>/run; LOAD_BALANCER sends " +
  "HTTP requests at https://<id>.<load-balancing domain>/<path> straight to its workers' servers (PORT, PORT_HEALTH).";

/** Fields shared by EndpointCreateInput and EndpointUpdateInput, all optional (no defaults). */
const endpointFields = {
  allowedCudaVersions: z.array(z.enum(CUDA_VERSIONS)).max(CUDA_VERSIONS.length).optional(),
  cpuFlavorIds: z.array(z.enum(ENDPOINT_CPU_FLAVOR_IDS)).min(1).max(ENDPOINT_CPU_FLAVOR_IDS.length).optional(),
  dataCenterIds: dataCenterIds.optional(),
  executionTimeoutMs: z.number().int().min(1000).max(MAX_EXECUTION_TIMEOUT_MS).optional(),
  flashboot: z.boolean().optional(),
  gpuCount: z.number().int().min(1).max(16).optional(),
  gpuTypeIds: gpuTypeIds.optional(),
  idleTimeout: z.number().int().min(1).max(3600).optional(),
  minCudaVersion: z.enum(CUDA_VERSIONS).optional(),
  name: resourceName.optional(),
  networkVolumeId: refId.optional(),
  networkVolumeIds: networkVolumeIds.optional(),
  scalerType: z.enum(SCALER_TYPES).optional(),
  scalerValue: z.number().int().min(1).max(100_000).optional(),
  type: z.enum(ENDPOINT_TYPES).optional().describe(TYPE_DESCRIPTION),
  vcpuCount: z.number().int().min(1).max(512).optional(),
  workersMax: workers.optional(),
  workersMin: workers.optional(),
};

/** Body of `POST /v1/endpoints` (RunPod's EndpointCreateInput); defaults are applied by the service. */
export const endpointCreateInput = z.strictObject({
  ...endpointFields,
  templateId: refId,
  computeType: z.enum(COMPUTE_TYPES).default('GPU'),
});
/** Parsed body of `POST /v1/endpoints`. */
export type EndpointCreateInput = z.infer<typeof endpointCreateInput>;

/** Body of `PATCH /v1/endpoints/{id}` (RunPod's EndpointUpdateInput): the create fields but computeType, all optional. */
export const endpointUpdateInput = z.strictObject({
  ...endpointFields,
  templateId: refId.optional(),
});
/** Parsed body of `PATCH /v1/endpoints/{id}`. */
export type EndpointUpdateInput = z.infer<typeof endpointUpdateInput>;

/** Query of `GET /v1/endpoints` and `GET /v1/endpoints/{id}`. */
export const endpointQuery = z.object({
  includeTemplate: queryBoolean,
  includeWorkers: queryBoolean,
});
/** Parsed endpoint list/get query. */
export type EndpointQuery = z.infer<typeof endpointQuery>;

/** Worker states as RunPod's `/health` counts them. */
export const WORKER_STATES = ['initializing', 'idle', 'running', 'unhealthy', 'throttled'] as const;
/** One of {@link WORKER_STATES}. */
export type WorkerState = (typeof WORKER_STATES)[number];

/**
 * A worker as the scheduler last saw it (Runplane's extension of the Endpoint): `reason` says why an unhealthy or
 * throttled worker does not serve, e.g. `CrashLoopBackOff after 3 restarts (exit code 1)`, a failed fitness check,
 * or why no machine has room for it. A throttled worker the cluster has no room for yet has no Pod, and an id of the
 * form `throttled-<n>`.
 */
export const endpointWorkerStateDto = z.object({
  workerId: z.string(),
  state: z.enum(WORKER_STATES),
  reason: z.string().optional(),
});
/** One entry of an endpoint's `workerStates`. */
export type EndpointWorkerStateDto = z.infer<typeof endpointWorkerStateDto>;

/**
 * An endpoint as the v1 API returns it (RunPod's Endpoint). `template` and `workers` appear only when asked
 * for, and `workerStates` (Runplane's) with `workers`; `flashboot`, `cpuFlavorIds` and `vcpuCount` are extensions
 * RunPod's CLI also reads; `type` is Runplane's (v2's endpoint type).
 */
export const endpointDto = z.object({
  id: z.string(),
  name: z.string(),
  userId: z.string(),
  templateId: z.string(),
  version: z.number().int(),
  computeType: z.enum(COMPUTE_TYPES),
  gpuTypeIds: z.array(z.string()),
  gpuCount: z.number().int(),
  cpuFlavorIds: z.array(z.string()),
  vcpuCount: z.number().int(),
  instanceIds: z.array(z.string()),
  dataCenterIds: z.array(z.string()),
  networkVolumeId: z.string().optional(),
  networkVolumeIds: z.array(z.string()),
  allowedCudaVersions: z.array(z.string()),
  minCudaVersion: z.string().optional(),
  env: z.record(z.string(), z.string()),
  executionTimeoutMs: z.number().int(),
  idleTimeout: z.number().int(),
  scalerType: z.enum(SCALER_TYPES),
  scalerValue: z.number().int(),
  workersMin: z.number().int(),
  workersMax: z.number().int(),
  flashboot: z.boolean(),
  type: z.enum(ENDPOINT_TYPES).describe(TYPE_DESCRIPTION),
  createdAt: z.string(),
  template: templateDto.optional(),
  workers: z.array(podDto).optional(),
  workerStates: z.array(endpointWorkerStateDto).optional(),
  /** Runplane's, with `workerStates`: why the endpoint's queued jobs wait (none queued: absent). */
  waitingReason: waitingReasonDto.optional(),
});
/** An endpoint as the v1 API returns it. */
export type EndpointDto = z.infer<typeof endpointDto>;
