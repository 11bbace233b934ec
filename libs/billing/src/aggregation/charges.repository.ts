import { type BillingRecord, type DbClient, newId } from '@runplane/db';
import { type Charge, type ChargeKind, chargeKeyOf } from '../metering/charges';
import { money, RECORD_DECIMALS } from '../metering/money';
import type { ResourceRef } from '../metering/resource';

/** Counts of billing records a rebill wrote. */
export interface ChargeWrites {
  created: number;
  updated: number;
  deleted: number;
}

function recordKind(resource: ResourceRef): ChargeKind {
  switch (resource.kind) {
    case 'WORKER':
      return 'ENDPOINT';
    case 'PUBLIC_JOB':
      return 'PUBLIC_ENDPOINT';
    default:
      return resource.kind;
  }
}

function toCharge(row: BillingRecord): Charge {
  return {
    accountId: row.accountId,
    kind: row.kind,
    time: row.time,
    podId: row.podId,
    endpointId: row.endpointId,
    gpuTypeId: row.gpuTypeId,
    networkVolumeId: row.networkVolumeId,
    templateId: row.templateId,
    imageName: row.imageName,
    dataCenterId: row.dataCenterId,
    amount: money(row.amount).toFixed(RECORD_DECIMALS),
    timeBilledMs: Number(row.timeBilledMs),
    diskSpaceBilledGb: row.diskSpaceBilledGb,
  };
}

// The record's unique `bucket` key.
function bucketOf(charge: Charge) {
  const { accountId, kind, time, podId, endpointId, gpuTypeId, networkVolumeId, templateId, imageName, dataCenterId } =
    charge;
  return { accountId, kind, time, podId, endpointId, gpuTypeId, networkVolumeId, templateId, imageName, dataCenterId };
}

const sameValues = (a: Charge, b: Charge): boolean =>
  a.amount === b.amount && a.timeBilledMs === b.timeBilledMs && a.diskSpaceBilledGb === b.diskSpaceBilledGb;

/** The hourly billing records the aggregator writes, one resource at a time, on the caller's transaction. */
export class ChargesRepository {
  constructor(private readonly db: DbClient) {}

  /** The resource's records from `from` (an hour start) on. */
  async chargesFrom(accountId: string, resource: ResourceRef, from: Date): Promise<Charge[]> {
    const column = resource.kind === 'NETWORK_VOLUME' ? 'networkVolumeId' : 'podId';
    const rows = await this.db.billingRecord.findMany({
      where: { accountId, kind: recordKind(resource), [column]: resource.id, time: { gte: from } },
    });
    return rows.map(toCharge);
  }

  /**
   * Makes the stored records equal `wanted`: unchanged records are not touched (a re-run writes nothing),
   * changed ones are updated in place by their bucket key, missing ones created, stale ones deleted.
   */
  async replace(stored: readonly Charge[], wanted: readonly Charge[]): Promise<ChargeWrites> {
    const before = new Map(stored.map((charge) => [chargeKeyOf(charge), charge]));
    const writes: ChargeWrites = { created: 0, updated: 0, deleted: 0 };
    for (const charge of wanted) {
      const key = chargeKeyOf(charge);
      const old = before.get(key);
      before.delete(key);
      if (old && sameValues(old, charge)) continue;
      const bucket = bucketOf(charge);
      const values = {
        amount: charge.amount,
        timeBilledMs: BigInt(charge.timeBilledMs),
        diskSpaceBilledGb: charge.diskSpaceBilledGb,
      };
      await this.db.billingRecord.upsert({
        where: { bucket },
        create: { id: newId(), ...bucket, ...values },
        update: values,
      });
      writes[old ? 'updated' : 'created'] += 1;
    }
    for (const gone of before.values()) {
      await this.db.billingRecord.delete({ where: { bucket: bucketOf(gone) } });
      writes.deleted += 1;
    }
    return writes;
  }
}
