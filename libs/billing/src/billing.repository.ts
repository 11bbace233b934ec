import type { BucketSize } from '@runplane/contracts';
import { type DbClient, Prisma } from '@runplane/db';

/** Which records a billing query reads. */
export type BillingKind = 'POD' | 'ENDPOINT' | 'NETWORK_VOLUME' | 'PUBLIC_ENDPOINT';
/** A record column buckets are grouped by (none: one row per bucket). */
export type BillingGroupColumn = 'podId' | 'endpointId' | 'gpuTypeId' | null;

/** A billing query after validation: every filter optional, the account always required. */
export interface BillingSelection {
  accountId: string;
  /** One kind, or several read as one (v1's endpoint records: the account's endpoints and public models it called). */
  kind: BillingKind | readonly BillingKind[];
  bucketSize: BucketSize;
  groupBy: BillingGroupColumn;
  startTime?: string;
  endTime?: string;
  podId?: string;
  endpointId?: string;
  gpuTypeIds?: string[];
  /** Endpoint records: the worker ran from this template (as recorded when it ran). */
  templateId?: string;
  /** Endpoint records: the worker ran this image (as recorded when it ran). */
  imageName?: string;
  /** Endpoint records: the worker ran in one of these data centers. */
  dataCenterIds?: string[];
}

/** One bucket (and group) of summed charges, numbers as JSON numbers. */
export interface BillingBucketRow {
  time: string;
  key: string;
  amount: number;
  timeBilledMs: number;
  diskSpaceBilledGb: number;
  highPerformanceStorageAmount: number;
  highPerformanceStorageDiskSpaceBilledGb: number;
}

const GROUP_COLUMNS = { podId: '"podId"', endpointId: '"endpointId"', gpuTypeId: '"gpuTypeId"' } as const;

// ISO-8601 date-times from the query, turned into the UTC timestamps the table stores.
const utc = (iso: string): Prisma.Sql => Prisma.sql`(${iso}::timestamptz AT TIME ZONE 'UTC')`;

function filters(s: BillingSelection): Prisma.Sql[] {
  const kinds = typeof s.kind === 'string' ? [s.kind] : s.kind;
  const where = [
    Prisma.sql`"accountId" = ${s.accountId}`,
    Prisma.sql`"kind" IN (${Prisma.join(kinds.map((kind) => Prisma.sql`${kind}::"BillingRecordKind"`))})`,
  ];
  if (s.startTime) where.push(Prisma.sql`"time" >= ${utc(s.startTime)}`);
  if (s.endTime) where.push(Prisma.sql`"time" <= ${utc(s.endTime)}`);
  if (s.podId) where.push(Prisma.sql`"podId" = ${s.podId}`);
  if (s.endpointId) where.push(Prisma.sql`"endpointId" = ${s.endpointId}`);
  if (s.gpuTypeIds?.length) where.push(Prisma.sql`"gpuTypeId" IN (${Prisma.join(s.gpuTypeIds)})`);
  if (s.templateId) where.push(Prisma.sql`"templateId" = ${s.templateId}`);
  if (s.imageName) where.push(Prisma.sql`"imageName" = ${s.imageName}`);
  if (s.dataCenterIds?.length) where.push(Prisma.sql`"dataCenterId" IN (${Prisma.join(s.dataCenterIds)})`);
  return where;
}

/**
 * Reads billing records. Records are hourly; a coarser bucket sums them exactly and rounds the sum to 6
 * decimal places (half away from zero) only then. Disk sizes are a level, not a flow, so within a bucket each
 * resource counts with its largest size, and the group sums its resources. Template, image and data center
 * filters read the records' own columns, so they keep working after the endpoint, template or Pod is gone.
 */
export class BillingRepository {
  constructor(private readonly db: DbClient) {}

  /** Buckets of the account's charges, oldest first, then by group key. */
  summarize(selection: BillingSelection): Promise<BillingBucketRow[]> {
    const key = selection.groupBy === null ? Prisma.sql`''` : Prisma.raw(GROUP_COLUMNS[selection.groupBy]);
    return this.db.$queryRaw<BillingBucketRow[]>`
      SELECT to_char("bucket", 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS "time", "key",
             ROUND(SUM("amount"), 6)::float8 AS "amount",
             SUM("ms")::float8 AS "timeBilledMs",
             SUM("disk")::float8 AS "diskSpaceBilledGb",
             ROUND(SUM("hpAmount"), 6)::float8 AS "highPerformanceStorageAmount",
             SUM("hpDisk")::float8 AS "highPerformanceStorageDiskSpaceBilledGb"
      FROM (
        SELECT date_trunc(${selection.bucketSize}::text, "time") AS "bucket", ${key} AS "key",
               SUM("amount") AS "amount", SUM("timeBilledMs") AS "ms", MAX("diskSpaceBilledGb") AS "disk",
               SUM("highPerformanceStorageAmount") AS "hpAmount",
               MAX("highPerformanceStorageDiskSpaceBilledGb") AS "hpDisk"
        FROM "billing_records"
        WHERE ${Prisma.join(filters(selection), ' AND ')}
        GROUP BY 1, 2, "podId", "endpointId", "networkVolumeId"
      ) AS "perResource"
      GROUP BY "bucket", "key"
      ORDER BY "bucket", "key"`;
  }
}
