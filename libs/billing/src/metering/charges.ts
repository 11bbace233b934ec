import type { DerivedInterval } from './intervals';
import { hourOf, HOURS_PER_MONTH, Money, MS_PER_HOUR, RECORD_DECIMALS } from './money';

/** A savings plan of a Pod: while active, the Pod's compute costs at most `costPerHr`. */
export interface PlanWindow {
  costPerHr: string;
  startTime: Date;
  endTime: Date;
}

/** Which billing read a charge belongs to. */
export type ChargeKind = 'POD' | 'ENDPOINT' | 'NETWORK_VOLUME' | 'PUBLIC_ENDPOINT';

/** The identity of one billing record: an hour of one resource with one set of dimensions ("" when unused). */
export interface ChargeKey {
  accountId: string;
  kind: ChargeKind;
  time: Date;
  podId: string;
  endpointId: string;
  gpuTypeId: string;
  networkVolumeId: string;
  templateId: string;
  imageName: string;
  dataCenterId: string;
}

/** One hourly billing record as computed from intervals. */
export interface Charge extends ChargeKey {
  /** USD, {@link RECORD_DECIMALS} decimal places. */
  amount: string;
  /** Running time in the hour (compute only; stopped disk and volumes bill no time). */
  timeBilledMs: number;
  /** Largest disk billed in the hour. */
  diskSpaceBilledGb: number;
}

/** A text key unique per billing record, to match computed charges with stored records. */
export function chargeKeyOf(key: ChargeKey): string {
  return [
    key.kind,
    key.time.toISOString(),
    key.podId,
    key.endpointId,
    key.gpuTypeId,
    key.networkVolumeId,
    key.templateId,
    key.imageName,
    key.dataCenterId,
  ].join('\u0000');
}

function keyOf(interval: DerivedInterval, hour: number): ChargeKey {
  const dims = {
    accountId: interval.accountId,
    time: new Date(hour),
    templateId: interval.templateId ?? '',
    imageName: interval.imageName ?? '',
    dataCenterId: interval.dataCenterId ?? '',
    gpuTypeId: interval.gpuTypeId ?? '',
  };
  switch (interval.resourceKind) {
    case 'POD':
      return { ...dims, kind: 'POD', podId: interval.resourceId, endpointId: '', networkVolumeId: '' };
    case 'NETWORK_VOLUME':
      return { ...dims, kind: 'NETWORK_VOLUME', podId: '', endpointId: '', networkVolumeId: interval.resourceId };
    case 'WORKER':
    case 'PUBLIC_JOB':
      // A public job's record (the caller's) names its job and the model, never the worker or the endpoint behind it.
      return {
        ...dims,
        kind: interval.resourceKind === 'WORKER' ? 'ENDPOINT' : 'PUBLIC_ENDPOINT',
        podId: interval.resourceId,
        endpointId: interval.endpointId ?? '',
        networkVolumeId: '',
      };
  }
}

// [from, to) cut where the price can change: at hour starts and savings plan edges.
function segments(from: number, to: number, plans: readonly PlanWindow[]): Array<[number, number]> {
  const cuts = new Set<number>();
  for (let hour = hourOf(from) + MS_PER_HOUR; hour < to; hour += MS_PER_HOUR) cuts.add(hour);
  for (const plan of plans) {
    for (const edge of [plan.startTime.getTime(), plan.endTime.getTime()]) if (edge > from && edge < to) cuts.add(edge);
  }
  const points = [from, ...[...cuts].sort((a, b) => a - b), to];
  return points.slice(1).map((end, i) => [points[i] ?? from, end]);
}

// The hourly compute rate at `at`: the interval's rate, or a lower savings plan rate active then.
function computeRate(interval: DerivedInterval, plans: readonly PlanWindow[], at: number): Money {
  const active = plans.filter((plan) => plan.startTime.getTime() <= at && at < plan.endTime.getTime());
  return active.reduce((lowest, plan) => Money.min(lowest, new Money(plan.costPerHr)), new Money(interval.ratePerHr));
}

interface Accumulator {
  key: ChargeKey;
  amount: Money;
  timeBilledMs: number;
  diskSpaceBilledGb: number;
}

// A flat amount (a public endpoint's per-request price) is billed once, in the hour the interval starts.
function addFlatAmount(buckets: Map<string, Accumulator>, interval: DerivedInterval, from: Date, until: Date): void {
  const at = interval.startedAt.getTime();
  const flat = new Money(interval.flatAmount);
  if (flat.isZero() || at < from.getTime() || at >= until.getTime()) return;
  const key = keyOf(interval, hourOf(at));
  const id = chargeKeyOf(key);
  const bucket = buckets.get(id) ?? { key, amount: new Money(0), timeBilledMs: 0, diskSpaceBilledGb: 0 };
  bucket.amount = bucket.amount.add(flat);
  buckets.set(id, bucket);
}

/**
 * Hourly charges of one resource's intervals within [from, until): compute at the interval's rate per hour
 * (a Pod's savings plans lower it while active), disk at its monthly cost / 730 per hour, both to the
 * millisecond. Each record's exact amount is rounded once, half-up, to 10 decimal places.
 */
export function computeCharges(
  intervals: readonly DerivedInterval[],
  plans: readonly PlanWindow[],
  from: Date,
  until: Date,
): Charge[] {
  const buckets = new Map<string, Accumulator>();
  const monthMs = new Money(HOURS_PER_MONTH * MS_PER_HOUR);
  for (const interval of intervals) {
    addFlatAmount(buckets, interval, from, until);
    const start = Math.max(interval.startedAt.getTime(), from.getTime());
    const end = Math.min(interval.endedAt?.getTime() ?? Infinity, until.getTime());
    if (end <= start) continue;
    const running = interval.phase === 'RUNNING';
    const intervalPlans = running && interval.resourceKind === 'POD' ? plans : [];
    for (const [a, b] of segments(start, end, intervalPlans)) {
      const ms = b - a;
      const key = keyOf(interval, hourOf(a));
      const id = chargeKeyOf(key);
      const bucket = buckets.get(id) ?? { key, amount: new Money(0), timeBilledMs: 0, diskSpaceBilledGb: 0 };
      const compute = running ? computeRate(interval, intervalPlans, a).mul(ms).div(MS_PER_HOUR) : new Money(0);
      const storage = new Money(interval.storageCostPerMonth).mul(ms).div(monthMs);
      bucket.amount = bucket.amount.add(compute).add(storage);
      bucket.timeBilledMs += running ? ms : 0;
      bucket.diskSpaceBilledGb = Math.max(bucket.diskSpaceBilledGb, interval.diskSpaceGb);
      buckets.set(id, bucket);
    }
  }
  return [...buckets.values()].map(({ key, amount, timeBilledMs, diskSpaceBilledGb }) => ({
    ...key,
    amount: amount.toDecimalPlaces(RECORD_DECIMALS).toFixed(RECORD_DECIMALS),
    timeBilledMs,
    diskSpaceBilledGb,
  }));
}
