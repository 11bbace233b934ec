import { addBuckets, type BillingBucketsRepository, type BucketRow, resolveWindow } from '@runplane/billing';
import type { BucketSize } from '@runplane/contracts';
import { ProblemError } from '../http';
import type {
  AggregateAmounts,
  BillingQuery,
  ListBillingResponse,
  ListEndpointBillingResponse,
  ListNetworkVolumeBillingResponse,
  ListPodBillingResponse,
  ListServerlessBillingResponse,
  NetworkVolumeBillingQuery,
  PodBillingQuery,
  ServerlessBillingQuery,
} from './billing.schemas';

const round = (value: number): number => Math.round(value * 1e6) / 1e6;

/** Sums each amount field over records, rounded as the records are. */
function totals<T extends Record<string, number>>(records: readonly T[], zero: T): T {
  const sum = { ...zero } as Record<string, number>;
  for (const record of records)
    for (const key of Object.keys(zero)) sum[key] = round((sum[key] ?? 0) + (record[key] ?? 0));
  return sum as T;
}

const ZERO_AGGREGATE: AggregateAmounts = {
  totalAmount: 0,
  podGpuAmount: 0,
  podCpuAmount: 0,
  podDiskAmount: 0,
  serverlessGpuAmount: 0,
  serverlessCpuAmount: 0,
  serverlessDiskAmount: 0,
  serverlessFeeAmount: 0,
  storageStandardAmount: 0,
  storageHighPerformanceAmount: 0,
  endpointAmount: 0,
  clusterGpuAmount: 0,
  clusterDiskAmount: 0,
  clusterNetworkingAmount: 0,
};

/** One kind's part of an aggregate bucket. */
function aggregatePart(row: BucketRow): Partial<AggregateAmounts> {
  if (row.kind === 'POD') return { podGpuAmount: row.gpu, podCpuAmount: row.cpu };
  if (row.kind === 'ENDPOINT') return { serverlessGpuAmount: row.gpu, serverlessCpuAmount: row.cpu };
  if (row.kind === 'PUBLIC_ENDPOINT') return { endpointAmount: row.total };
  return {
    storageStandardAmount: round(row.total - row.highPerformance),
    storageHighPerformanceAmount: row.highPerformance,
  };
}

/**
 * `/v2/billing/*` over the billing records v1's `/v1/billing/*` reads: time buckets of a resolved half-open window,
 * per resource (pods, serverless endpoints, network volumes) or every family per bucket (`/v2/billing`).
 */
export class BillingV2Service {
  constructor(private readonly buckets: BillingBucketsRepository) {}

  async aggregate(accountId: string, query: BillingQuery): Promise<ListBillingResponse> {
    const { echo, rows } = await this.read(accountId, query);
    const byStart = new Map<string, Record<string, number>>();
    for (const row of rows) {
      const bucket = byStart.get(row.start) ?? { ...ZERO_AGGREGATE };
      for (const [key, value] of Object.entries({ ...aggregatePart(row), totalAmount: row.total })) {
        bucket[key] = round((bucket[key] ?? 0) + (value ?? 0));
      }
      byStart.set(row.start, bucket);
    }
    const records = [...byStart.entries()].map(([start, amounts]) => ({
      ...this.range(start, query.bucketSize),
      ...(amounts as AggregateAmounts),
    }));
    return { records, metadata: { query: echo, recordCount: records.length, totals: totals(records, ZERO_AGGREGATE) } };
  }

  async pods(accountId: string, query: PodBillingQuery): Promise<ListPodBillingResponse> {
    const { echo, rows } = await this.read(accountId, query, 'POD', query.podId);
    const records = rows.map((row) => ({
      ...this.range(row.start, query.bucketSize),
      podId: row.resourceId,
      totalAmount: row.total,
      gpuAmount: row.gpu,
      cpuAmount: row.cpu,
      diskAmount: 0,
    }));
    const zero = { totalAmount: 0, gpuAmount: 0, cpuAmount: 0, diskAmount: 0 };
    return {
      records,
      metadata: {
        query: { ...echo, podId: query.podId ?? null },
        recordCount: records.length,
        uniquePodCount: new Set(records.map((r) => r.podId)).size,
        totals: totals(records, zero),
      },
    };
  }

  async serverless(accountId: string, query: ServerlessBillingQuery): Promise<ListServerlessBillingResponse> {
    const { echo, rows } = await this.read(accountId, query, 'ENDPOINT', query.serverlessId);
    const records = rows.map((row) => ({
      ...this.range(row.start, query.bucketSize),
      serverlessId: row.resourceId,
      totalAmount: row.total,
      gpuAmount: row.gpu,
      cpuAmount: row.cpu,
      diskAmount: 0,
      feeAmount: 0,
    }));
    const zero = { totalAmount: 0, gpuAmount: 0, cpuAmount: 0, diskAmount: 0, feeAmount: 0 };
    return {
      records,
      metadata: {
        query: { ...echo, serverlessId: query.serverlessId ?? null },
        recordCount: records.length,
        uniqueServerlessCount: new Set(records.map((r) => r.serverlessId)).size,
        totals: totals(records, zero),
      },
    };
  }

  async networkVolumes(accountId: string, query: NetworkVolumeBillingQuery): Promise<ListNetworkVolumeBillingResponse> {
    const { echo, rows } = await this.read(accountId, query, 'NETWORK_VOLUME', query.networkVolumeId);
    const records = rows.map((row) => ({
      ...this.range(row.start, query.bucketSize),
      networkVolumeId: row.resourceId,
      totalAmount: row.total,
      standardAmount: round(row.total - row.highPerformance),
      highPerformanceAmount: row.highPerformance,
    }));
    const zero = { totalAmount: 0, standardAmount: 0, highPerformanceAmount: 0 };
    return {
      records,
      metadata: {
        query: { ...echo, networkVolumeId: query.networkVolumeId ?? null },
        recordCount: records.length,
        uniqueNetworkVolumeCount: new Set(records.map((r) => r.networkVolumeId)).size,
        totals: totals(records, zero),
      },
    };
  }

  /** RunPod's public endpoints are RunPod-hosted models; Runplane runs none, so they never cost anything. */
  /** The public endpoints (models) the account called, summed per bucket over every model. */
  async endpoints(accountId: string, query: BillingQuery): Promise<ListEndpointBillingResponse> {
    const { echo, rows } = await this.read(accountId, query, 'PUBLIC_ENDPOINT');
    const byStart = new Map<string, number>();
    for (const row of rows) byStart.set(row.start, round((byStart.get(row.start) ?? 0) + row.total));
    const records = [...byStart.entries()].map(([start, totalAmount]) => ({
      ...this.range(start, query.bucketSize),
      totalAmount,
    }));
    const totalAmount = records.reduce((sum, record) => round(sum + record.totalAmount), 0);
    return { records, metadata: { query: echo, recordCount: records.length, totals: { totalAmount } } };
  }

  private async read(
    accountId: string,
    query: BillingQuery,
    kind?: BucketRow['kind'],
    resourceId?: string,
  ): Promise<{
    window: ReturnType<typeof resolveWindow>;
    echo: ReturnType<BillingV2Service['echo']>;
    rows: BucketRow[];
  }> {
    const echo = this.echo(query, new Date());
    const window = { start: new Date(echo.startTime), end: new Date(echo.endTime) };
    const rows = await this.buckets.summarize({ accountId, window, bucketSize: query.bucketSize, kind, resourceId });
    return { window, echo, rows };
  }

  /** The resolved window as the response's `metadata.query` echoes it (400 for contradictory parameters). */
  private echo(query: BillingQuery, now: Date): { startTime: string; endTime: string; bucketSize: BucketSize } {
    if (query.lastN !== undefined && (query.startTime !== undefined || query.endTime !== undefined)) {
      throw new ProblemError(400, 'lastN and startTime/endTime are mutually exclusive; send one or the other');
    }
    if (query.startTime && query.endTime && Date.parse(query.startTime) >= Date.parse(query.endTime)) {
      throw new ProblemError(400, 'startTime must be before endTime');
    }
    const window = resolveWindow(query, now);
    return { startTime: iso(window.start), endTime: iso(window.end), bucketSize: query.bucketSize };
  }

  private range(start: string, size: BucketSize): { startTime: string; endTime: string } {
    return { startTime: start, endTime: iso(addBuckets(new Date(start), size, 1)) };
  }
}

const iso = (date: Date): string => date.toISOString().replace('.000Z', 'Z');
