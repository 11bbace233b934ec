import { z } from 'zod';
import { BUCKET_SIZES, catalogId, queryArray, refId } from './common';

/** A billing bucket size. */
export type BucketSize = (typeof BUCKET_SIZES)[number];

const dateTime = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time, e.g. 2023-01-01T00:00:00Z' });

/** The time window every billing query shares; startTime may not be after endTime. */
const window = {
  bucketSize: z.enum(BUCKET_SIZES).default('day'),
  startTime: dateTime.optional(),
  endTime: dateTime.optional(),
};

function startNotAfterEnd(query: { startTime?: string; endTime?: string }): boolean {
  return !query.startTime || !query.endTime || Date.parse(query.startTime) <= Date.parse(query.endTime);
}
const startAfterEnd = { message: 'must not be after endTime', path: ['startTime'] };

/** Query of `GET /v1/billing/pods`. */
export const podBillingQuery = z
  .object({
    ...window,
    gpuTypeId: catalogId.optional(),
    grouping: z.enum(['podId', 'gpuTypeId']).default('gpuTypeId'),
    podId: refId.optional(),
  })
  .refine(startNotAfterEnd, startAfterEnd);
/** Parsed `GET /v1/billing/pods` query. */
export type PodBillingQuery = z.infer<typeof podBillingQuery>;

/** Query of `GET /v1/billing/endpoints`; `dataCenterId` and `gpuTypeId` repeat the key. */
export const endpointBillingQuery = z
  .object({
    ...window,
    dataCenterId: queryArray(catalogId).pipe(z.array(catalogId).max(128)).optional(),
    endpointId: refId.optional(),
    gpuTypeId: queryArray(catalogId).pipe(z.array(catalogId).max(64)).optional(),
    grouping: z.enum(['endpointId', 'podId', 'gpuTypeId']).default('endpointId'),
    imageName: z.string().min(1).max(512).optional(),
    templateId: refId.optional(),
  })
  .refine(startNotAfterEnd, startAfterEnd);
/** Parsed `GET /v1/billing/endpoints` query. */
export type EndpointBillingQuery = z.infer<typeof endpointBillingQuery>;

/** Query of `GET /v1/billing/networkvolumes`. */
export const networkVolumeBillingQuery = z.object(window).refine(startNotAfterEnd, startAfterEnd);
/** Parsed `GET /v1/billing/networkvolumes` query. */
export type NetworkVolumeBillingQuery = z.infer<typeof networkVolumeBillingQuery>;

/** One bucket of pod or endpoint charges (RunPod's BillingRecord); the grouping key names what it sums. */
export const billingRecordDto = z.object({
  time: z.string(),
  amount: z.number(),
  timeBilledMs: z.number().int(),
  diskSpaceBilledGb: z.number().int(),
  podId: z.string().optional(),
  endpointId: z.string().optional(),
  gpuTypeId: z.string().optional(),
});
/** One bucket of pod or endpoint charges. */
export type BillingRecordDto = z.infer<typeof billingRecordDto>;

/** One bucket of network volume charges (RunPod's NetworkVolumeBillingRecord). */
export const networkVolumeBillingRecordDto = z.object({
  time: z.string(),
  amount: z.number(),
  diskSpaceBilledGb: z.number().int(),
  highPerformanceStorageAmount: z.number(),
  highPerformanceStorageDiskSpaceBilledGb: z.number().int(),
});
/** One bucket of network volume charges. */
export type NetworkVolumeBillingRecordDto = z.infer<typeof networkVolumeBillingRecordDto>;
