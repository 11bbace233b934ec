import { z } from 'zod';

/** CUDA versions accepted by allowedCudaVersions / minCudaVersion (RunPod v1). */
export const CUDA_VERSIONS = [
  '13.0',
  '12.9',
  '12.8',
  '12.7',
  '12.6',
  '12.5',
  '12.4',
  '12.3',
  '12.2',
  '12.1',
  '12.0',
  '11.8',
] as const;
/** GPU or CPU compute. */
export const COMPUTE_TYPES = ['GPU', 'CPU'] as const;
/** Secure or community cloud. */
export const CLOUD_TYPES = ['SECURE', 'COMMUNITY'] as const;
/** Endpoint autoscaler kinds. */
export const SCALER_TYPES = ['QUEUE_DELAY', 'REQUEST_COUNT'] as const;
/** A Pod's desired status. */
export const DESIRED_STATUSES = ['RUNNING', 'EXITED', 'TERMINATED'] as const;
/** How a priority list (GPU types, data centers, CPU flavors) is used. */
export const SELECTION_PRIORITIES = ['availability', 'custom'] as const;
/** Template categories. */
export const TEMPLATE_CATEGORIES = ['NVIDIA', 'AMD', 'CPU'] as const;
/** CPU flavors a Pod may ask for. */
export const POD_CPU_FLAVOR_IDS = ['cpu3c', 'cpu3g', 'cpu3m', 'cpu5c', 'cpu5g', 'cpu5m'] as const;
/** CPU flavors an endpoint may ask for. */
export const ENDPOINT_CPU_FLAVOR_IDS = ['cpu3c', 'cpu3g', 'cpu5c', 'cpu5g'] as const;
/** Billing bucket sizes. */
export const BUCKET_SIZES = ['hour', 'day', 'week', 'month', 'year'] as const;

/**
 * A repeated query parameter (`?gpuTypeId=A&gpuTypeId=B`, OpenAPI form-explode): one value arrives as a
 * string, several as an array; both parse to an array.
 */
export function queryArray<T extends z.ZodType>(item: T) {
  return z.preprocess((value) => (value === undefined || Array.isArray(value) ? value : [value]), z.array(item));
}

/**
 * An integer query parameter within [min, max]. Each failure names its own rule: the message of a value out of range
 * is not the one of a value that is not a number.
 */
export function queryInt(min: number, max: number) {
  return z.coerce
    .number({ error: 'expected a number' })
    .int({ error: 'expected an integer' })
    .min(min, { error: `must be >= ${min}` })
    .max(max, { error: `must be <= ${max}` });
}

/** A boolean query flag: `true`/`false` (any case) or `1`/`0`; absent means false. */
export const queryBoolean = z
  .preprocess((value) => {
    if (typeof value !== 'string') return value;
    const lower = value.toLowerCase();
    if (lower === 'true' || lower === '1') return true;
    if (lower === 'false' || lower === '0') return false;
    return value;
  }, z.boolean())
  .default(false);

/** Environment variables: a map of names to string values. */
export const envMap = z.record(z.string().min(1).max(1024), z.string().max(32_768));

const PORT = /^([1-9][0-9]{0,4})\/(http|tcp|udp)$/;

/**
 * Exposed ports as `[port]/[protocol]`. RunPod's spec documents the default as the comma string
 * "8888/http,22/tcp", so a comma-separated string is accepted too.
 */
export const portList = z.preprocess(
  (value) =>
    typeof value === 'string'
      ? value
          .split(',')
          .map((part) => part.trim())
          .filter(Boolean)
      : value,
  z
    .array(
      z
        .string()
        .regex(PORT, 'must look like 8888/http or 22/tcp')
        .refine((p) => Number(p.split('/')[0]) <= 65535, 'port must be <= 65535'),
    )
    .max(64),
);

/** A user-defined resource name (RunPod's limit is 191 characters). */
export const resourceName = z.string().trim().min(1).max(191);

/** Whole gigabytes for a disk, bounded like RunPod's volumes. */
export const diskGb = z.number().int().min(0).max(4000);

/** An id of another resource given in a body (opaque, URL-safe). */
export const refId = z.string().min(1).max(191);

/**
 * A reference an update may remove: `null`, or `""` as runpodctl sends it (`--registry-auth-id ""` clears a template's
 * registry auth), both read as null.
 */
export const removableRefId = z.union([refId, z.null(), z.literal('').transform(() => null)], {
  error: 'expected an id, or null or "" to remove it',
});

/** A container image reference (`repo/name:tag`). */
export const imageRef = z.string().trim().min(1).max(512);

/** The absolute path a volume is mounted at. */
export const mountPath = z.string().min(1).max(255).regex(/^\//, 'must be an absolute path');

/** An ENTRYPOINT or CMD override: its arguments, at most `maxItems`. */
export function commandArgs(maxItems: number) {
  return z.array(z.string().max(4096)).max(maxItems);
}

/** A catalog id (GPU type, data center) given as a filter or preference; checked against the catalog by services. */
export const catalogId = z.string().min(1).max(191);
