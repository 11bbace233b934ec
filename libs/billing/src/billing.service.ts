import {
  type BillingRecordDto,
  type EndpointBillingQuery,
  type NetworkVolumeBillingQuery,
  type NetworkVolumeBillingRecordDto,
  type PodBillingQuery,
  ValidationError,
} from '@runplane/contracts';
import type { BillingBucketRow, BillingRepository, BillingSelection } from './billing.repository';

/** The catalog entries billing filters are checked against (wired to the catalog lib by the app). */
export interface BillingCatalog {
  findGpuType(id: string): Promise<{ id: string } | null>;
  findDataCenter(id: string): Promise<{ id: string } | null>;
}

type Grouping = NonNullable<BillingSelection['groupBy']>;

function toRecord(row: BillingBucketRow, grouping: Grouping): BillingRecordDto {
  return {
    time: row.time,
    amount: row.amount,
    timeBilledMs: row.timeBilledMs,
    diskSpaceBilledGb: row.diskSpaceBilledGb,
    [grouping]: row.key,
  };
}

/** Billing history of an account, bucketed and grouped as RunPod's `/billing/*` reads are. */
export class BillingService {
  constructor(
    private readonly records: BillingRepository,
    private readonly catalog: BillingCatalog,
  ) {}

  async pods(accountId: string, query: PodBillingQuery): Promise<BillingRecordDto[]> {
    const gpuTypeIds = query.gpuTypeId === undefined ? undefined : [query.gpuTypeId];
    await this.checkGpuTypes(gpuTypeIds, () => 'gpuTypeId');
    const rows = await this.records.summarize({
      accountId,
      kind: 'POD',
      bucketSize: query.bucketSize,
      groupBy: query.grouping,
      startTime: query.startTime,
      endTime: query.endTime,
      podId: query.podId,
      gpuTypeIds,
    });
    return rows.map((row) => toRecord(row, query.grouping));
  }

  async endpoints(accountId: string, query: EndpointBillingQuery): Promise<BillingRecordDto[]> {
    await this.checkGpuTypes(query.gpuTypeId, (index) => `gpuTypeId.${index}`);
    for (const [index, id] of (query.dataCenterId ?? []).entries()) {
      if (!(await this.catalog.findDataCenter(id)))
        throw new ValidationError(`dataCenterId.${index}: unknown data center "${id}"`);
    }
    const rows = await this.records.summarize({
      accountId,
      // The account's own endpoints, and the public models it called (endpointId: the model, podId: the job).
      kind: ['ENDPOINT', 'PUBLIC_ENDPOINT'],
      bucketSize: query.bucketSize,
      groupBy: query.grouping,
      startTime: query.startTime,
      endTime: query.endTime,
      endpointId: query.endpointId,
      gpuTypeIds: query.gpuTypeId,
      templateId: query.templateId,
      imageName: query.imageName,
      dataCenterIds: query.dataCenterId,
    });
    return rows.map((row) => toRecord(row, query.grouping));
  }

  async networkVolumes(accountId: string, query: NetworkVolumeBillingQuery): Promise<NetworkVolumeBillingRecordDto[]> {
    const rows = await this.records.summarize({
      accountId,
      kind: 'NETWORK_VOLUME',
      bucketSize: query.bucketSize,
      groupBy: null,
      startTime: query.startTime,
      endTime: query.endTime,
    });
    return rows.map(({ key: _key, timeBilledMs: _ms, ...record }) => record);
  }

  /** `field` names the query parameter in the error: `gpuTypeId` alone, or `gpuTypeId.<index>` for a list. */
  private async checkGpuTypes(ids: string[] | undefined, field: (index: number) => string): Promise<void> {
    for (const [index, id] of (ids ?? []).entries()) {
      if (!(await this.catalog.findGpuType(id))) throw new ValidationError(`${field(index)}: unknown GPU type "${id}"`);
    }
  }
}
