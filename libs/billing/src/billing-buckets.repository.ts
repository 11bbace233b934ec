import type { BucketSize } from '@runplane/contracts';
import { type DbClient, Prisma } from '@runplane/db';
import type { BillingWindow } from './billing-window';

/** The record kinds of a v2 billing read; all of them for the aggregate. */
export type BucketKind = 'POD' | 'ENDPOINT' | 'NETWORK_VOLUME' | 'PUBLIC_ENDPOINT';

/** A v2 billing read: one kind (grouped by its resource) or every kind (one row per bucket and kind). */
export interface BucketSelection {
  accountId: string;
  window: BillingWindow;
  bucketSize: BucketSize;
  kind?: BucketKind;
  /** The resource id to keep (a Pod, an endpoint or a network volume, as the kind says). */
  resourceId?: string;
}

/** One bucket of one kind and resource: amounts in USD rounded to 6 places once summed. */
export interface BucketRow {
  start: string;
  kind: BucketKind;
  resourceId: string;
  total: number;
  /** Charges of GPU Pods or GPU workers (the record names a GPU type); the rest is `cpu`. */
  gpu: number;
  cpu: number;
  highPerformance: number;
}

const utc = (date: Date): Prisma.Sql => Prisma.sql`(${date.toISOString()}::timestamptz AT TIME ZONE 'UTC')`;

/**
 * Billing records summed per bucket, kind and resource over a half-open window. Records hold compute and disk
 * together (disk is billed into the same hourly amount), so v2's `diskAmount` has no part of its own.
 */
export class BillingBucketsRepository {
  constructor(private readonly db: DbClient) {}

  summarize(s: BucketSelection): Promise<BucketRow[]> {
    const where = [
      Prisma.sql`"accountId" = ${s.accountId}`,
      Prisma.sql`"time" >= ${utc(s.window.start)}`,
      Prisma.sql`"time" < ${utc(s.window.end)}`,
    ];
    if (s.kind) where.push(Prisma.sql`"kind" = ${s.kind}::"BillingRecordKind"`);
    const resource = Prisma.sql`CASE "kind" WHEN 'POD' THEN "podId" WHEN 'NETWORK_VOLUME' THEN "networkVolumeId" ELSE "endpointId" END`;
    if (s.resourceId !== undefined) where.push(Prisma.sql`${resource} = ${s.resourceId}`);
    const key = s.kind ? resource : Prisma.sql`''`;
    return this.db.$queryRaw<BucketRow[]>`
      SELECT to_char(date_trunc(${s.bucketSize}::text, "time"), 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS "start",
             "kind"::text AS "kind", ${key} AS "resourceId",
             ROUND(SUM("amount"), 6)::float8 AS "total",
             ROUND(COALESCE(SUM("amount") FILTER (WHERE "gpuTypeId" <> ''), 0), 6)::float8 AS "gpu",
             ROUND(COALESCE(SUM("amount") FILTER (WHERE "gpuTypeId" = ''), 0), 6)::float8 AS "cpu",
             ROUND(SUM("highPerformanceStorageAmount"), 6)::float8 AS "highPerformance"
      FROM "billing_records"
      WHERE ${Prisma.join(where, ' AND ')}
      GROUP BY 1, 2, 3
      ORDER BY 1, 3, 2`;
  }
}
