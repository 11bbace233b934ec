import { BUCKET_SIZES, queryInt } from '@runplane/contracts';
import { z } from 'zod';

const dateTime = z.iso.datetime({ offset: true, message: 'must be an RFC 3339 date-time, e.g. 2026-06-01T00:00:00Z' });

/** The window parameters every v2 billing read takes. */
const windowQuery = {
  startTime: dateTime.optional(),
  endTime: dateTime.optional(),
  bucketSize: z.enum(BUCKET_SIZES).default('day'),
  lastN: queryInt(1, 10_000).optional(),
};

export const billingQuery = z.object(windowQuery);
export type BillingQuery = z.infer<typeof billingQuery>;
export const podBillingQuery = z.object({ ...windowQuery, podId: z.string().min(1).max(191).optional() });
export type PodBillingQuery = z.infer<typeof podBillingQuery>;
export const serverlessBillingQuery = z.object({ ...windowQuery, serverlessId: z.string().min(1).max(191).optional() });
export type ServerlessBillingQuery = z.infer<typeof serverlessBillingQuery>;
export const networkVolumeBillingQuery = z.object({
  ...windowQuery,
  networkVolumeId: z.string().min(1).max(191).optional(),
});
export type NetworkVolumeBillingQuery = z.infer<typeof networkVolumeBillingQuery>;

const range = { startTime: z.string(), endTime: z.string() };
const queryEcho = { ...range, bucketSize: z.enum(BUCKET_SIZES) };

const aggregateAmounts = z.object({
  totalAmount: z.number(),
  podGpuAmount: z.number(),
  podCpuAmount: z.number(),
  podDiskAmount: z.number(),
  serverlessGpuAmount: z.number(),
  serverlessCpuAmount: z.number(),
  serverlessDiskAmount: z.number(),
  serverlessFeeAmount: z.number(),
  storageStandardAmount: z.number(),
  storageHighPerformanceAmount: z.number(),
  endpointAmount: z.number(),
  clusterGpuAmount: z.number(),
  clusterDiskAmount: z.number(),
  clusterNetworkingAmount: z.number(),
});
export type AggregateAmounts = z.infer<typeof aggregateAmounts>;
const podAmounts = z.object({
  totalAmount: z.number(),
  gpuAmount: z.number(),
  cpuAmount: z.number(),
  diskAmount: z.number(),
});
export type PodAmounts = z.infer<typeof podAmounts>;
const serverlessAmounts = podAmounts.extend({ feeAmount: z.number() });
export type ServerlessAmounts = z.infer<typeof serverlessAmounts>;
const volumeAmounts = z.object({
  totalAmount: z.number(),
  standardAmount: z.number(),
  highPerformanceAmount: z.number(),
});
export type VolumeAmounts = z.infer<typeof volumeAmounts>;
const endpointAmounts = z.object({ totalAmount: z.number() });

/** RunPod's ListBillingResponse (every resource family per bucket). */
export const listBillingSchema = z.object({
  records: z.array(aggregateAmounts.extend(range)),
  metadata: z.object({ query: z.object(queryEcho), recordCount: z.number().int(), totals: aggregateAmounts }),
});
export type ListBillingResponse = z.infer<typeof listBillingSchema>;

/** RunPod's ListPodBillingResponse. */
export const listPodBillingSchema = z.object({
  records: z.array(podAmounts.extend({ ...range, podId: z.string() })),
  metadata: z.object({
    query: z.object({ ...queryEcho, podId: z.string().nullable() }),
    recordCount: z.number().int(),
    uniquePodCount: z.number().int(),
    totals: podAmounts,
  }),
});
export type ListPodBillingResponse = z.infer<typeof listPodBillingSchema>;

/** RunPod's ListServerlessBillingResponse. */
export const listServerlessBillingSchema = z.object({
  records: z.array(serverlessAmounts.extend({ ...range, serverlessId: z.string() })),
  metadata: z.object({
    query: z.object({ ...queryEcho, serverlessId: z.string().nullable() }),
    recordCount: z.number().int(),
    uniqueServerlessCount: z.number().int(),
    totals: serverlessAmounts,
  }),
});
export type ListServerlessBillingResponse = z.infer<typeof listServerlessBillingSchema>;

/** RunPod's ListNetworkVolumeBillingResponse. */
export const listNetworkVolumeBillingSchema = z.object({
  records: z.array(volumeAmounts.extend({ ...range, networkVolumeId: z.string() })),
  metadata: z.object({
    query: z.object({ ...queryEcho, networkVolumeId: z.string().nullable() }),
    recordCount: z.number().int(),
    uniqueNetworkVolumeCount: z.number().int(),
    totals: volumeAmounts,
  }),
});
export type ListNetworkVolumeBillingResponse = z.infer<typeof listNetworkVolumeBillingSchema>;

/** RunPod's ListEndpointBillingResponse: the public endpoints (models) the account called, per bucket. */
export const listEndpointBillingSchema = z.object({
  records: z.array(endpointAmounts.extend(range)),
  metadata: z.object({ query: z.object(queryEcho), recordCount: z.number().int(), totals: endpointAmounts }),
});
export type ListEndpointBillingResponse = z.infer<typeof listEndpointBillingSchema>;
