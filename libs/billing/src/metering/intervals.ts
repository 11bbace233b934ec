import type { PublicJobUsageEvent, StoragePrices, UsageEvent, VolumeUsageEvent } from '@runplane/contracts';
import { Money, RATE_DECIMALS } from './money';
import { resourceOf, type ResourceKind } from './resource';

/** What an interval bills: compute (and a Pod's disk), a stopped Pod's disk, or a network volume. */
export type UsagePhase = 'RUNNING' | 'STOPPED' | 'STORED';

/** A span of constant rates of one resource, as derived from its usage events. */
export interface DerivedInterval {
  /** The event that opened the interval. */
  eventId: string;
  /** The event that closed it; null while it is open. */
  endEventId: string | null;
  accountId: string;
  resourceKind: ResourceKind;
  resourceId: string;
  phase: UsagePhase;
  endpointId: string | null;
  gpuTypeId: string | null;
  gpuCount: number;
  cpuFlavorId: string | null;
  dataCenterId: string | null;
  templateId: string | null;
  imageName: string | null;
  diskSpaceGb: number;
  /** USD per hour of compute, 6 decimal places ("0" unless RUNNING). */
  ratePerHr: string;
  /** USD per month of the interval's disk, 6 decimal places. */
  storageCostPerMonth: string;
  /** USD billed once, in the hour the interval starts (a public endpoint's per-request price), 6 decimal places. */
  flatAmount: string;
  startedAt: Date;
  endedAt: Date | null;
}

// Same-instant events apply in lifecycle order, then by id, so any delivery order derives the same intervals.
const LIFECYCLE_RANK: Record<UsageEvent['type'], number> = {
  'pod.started': 0,
  'pod.stopped': 1,
  'pod.terminated': 2,
  'worker.started': 0,
  'worker.stopped': 1,
  'volume.created': 0,
  'volume.resized': 1,
  'volume.deleted': 2,
  'job.billed': 0,
};

/** Events of one resource in the order they happened. */
export function inLifecycleOrder(events: readonly UsageEvent[]): UsageEvent[] {
  return [...events].sort(
    (a, b) =>
      Date.parse(a.occurredAt) - Date.parse(b.occurredAt) ||
      LIFECYCLE_RANK[a.type] - LIFECYCLE_RANK[b.type] ||
      (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0),
  );
}

const rate = (value: Money): string => value.toDecimalPlaces(RATE_DECIMALS).toFixed(RATE_DECIMALS);

/** Monthly cost of a network volume of `sizeGb`: the GB above the tier get the lower price. */
export function volumeCostPerMonth(sizeGb: number, prices: StoragePrices): Money {
  const base = Math.min(sizeGb, prices.networkVolumeTierGb);
  const over = Math.max(sizeGb - prices.networkVolumeTierGb, 0);
  return new Money(prices.networkVolumePerGbMonth)
    .mul(base)
    .add(new Money(prices.networkVolumeOverTierPerGbMonth).mul(over));
}

function opened(event: UsageEvent, phase: UsagePhase, prices: StoragePrices): DerivedInterval {
  const resource = resourceOf(event);
  const base = {
    eventId: event.eventId,
    endEventId: null,
    accountId: event.accountId,
    resourceKind: resource.kind,
    resourceId: resource.id,
    phase,
    startedAt: new Date(event.occurredAt),
    endedAt: null,
    flatAmount: rate(new Money(0)),
  };
  if ('networkVolumeId' in event) return { ...base, ...volumeShape(event, prices) };
  if ('jobId' in event) return { ...base, ...jobShape(event) };
  const compute = {
    endpointId: 'endpointId' in event ? event.endpointId : null,
    gpuTypeId: event.gpuTypeId,
    gpuCount: event.gpuCount,
    cpuFlavorId: event.cpuFlavorId,
    dataCenterId: event.dataCenterId,
    templateId: event.templateId ?? null,
    imageName: event.imageName ?? null,
    ratePerHr: rate(phase === 'RUNNING' ? new Money(event.costPerHr) : new Money(0)),
  };
  if (!('podId' in event)) return { ...base, ...compute, diskSpaceGb: 0, storageCostPerMonth: rate(new Money(0)) };
  const diskSpaceGb = event.containerDiskInGb + event.volumeInGb;
  const perGb = phase === 'RUNNING' ? prices.podDiskRunningPerGbMonth : prices.podDiskStoppedPerGbMonth;
  return { ...base, ...compute, diskSpaceGb, storageCostPerMonth: rate(new Money(perGb).mul(diskSpaceGb)) };
}

function volumeShape(event: VolumeUsageEvent, prices: StoragePrices) {
  return {
    endpointId: null,
    gpuTypeId: null,
    gpuCount: 0,
    cpuFlavorId: null,
    dataCenterId: event.dataCenterId,
    templateId: null,
    imageName: null,
    diskSpaceGb: event.sizeGb,
    ratePerHr: rate(new Money(0)),
    storageCostPerMonth: rate(volumeCostPerMonth(event.sizeGb, prices)),
  };
}

// A public-endpoint job: the caller pays the worker's rate for the execution time, or the flat per-request price.
function jobShape(event: PublicJobUsageEvent) {
  const perRequest = event.pricePerRequest !== null;
  return {
    endpointId: event.model,
    gpuTypeId: null,
    gpuCount: 0,
    cpuFlavorId: null,
    dataCenterId: null,
    templateId: null,
    imageName: null,
    diskSpaceGb: 0,
    ratePerHr: rate(perRequest ? new Money(0) : new Money(event.costPerHr)),
    storageCostPerMonth: rate(new Money(0)),
    flatAmount: rate(new Money(event.pricePerRequest ?? 0)),
  };
}

/** The one interval of a billed public-endpoint job: the `executionMs` before it was metered. */
function jobInterval(event: PublicJobUsageEvent, prices: StoragePrices): DerivedInterval {
  const endedAt = new Date(event.occurredAt);
  const startedAt = new Date(endedAt.getTime() - event.executionMs);
  return { ...opened(event, 'RUNNING', prices), startedAt, endedAt, endEventId: event.eventId };
}

type Step = { close: boolean; open?: UsagePhase; final?: boolean };

/**
 * The lifecycle rules, one event at a time given the open interval's phase (null: none open):
 * - Pod: started closes whatever is open and opens RUNNING; stopped opens STOPPED (its disk stays billed),
 *   unless already stopped; terminated closes and ends the Pod's billing.
 * - worker: started opens RUNNING; stopped closes.
 * - volume: created or resized opens STORED at the new size; deleted closes and ends it.
 * A stop that comes before any start (its start not delivered yet) still opens STOPPED from the stop; when the
 * start arrives the intervals are derived again and the running time before the stop is billed.
 */
function step(event: UsageEvent, open: UsagePhase | null): Step {
  switch (event.type) {
    case 'pod.started':
    case 'worker.started':
      return { close: true, open: 'RUNNING' };
    case 'pod.stopped':
      return open === 'STOPPED' ? { close: false } : { close: true, open: 'STOPPED' };
    case 'worker.stopped':
      return { close: true };
    case 'volume.created':
    case 'volume.resized':
      return { close: true, open: 'STORED' };
    case 'pod.terminated':
    case 'volume.deleted':
    case 'job.billed':
      return { close: true, final: true };
  }
}

/**
 * Intervals of one resource from all of its events (any delivery order). Events after a terminate or delete
 * are ignored; zero-length intervals are dropped. Pure: the same events always give the same intervals.
 */
export function deriveIntervals(events: readonly UsageEvent[], prices: StoragePrices): DerivedInterval[] {
  const billed = events.find((event): event is PublicJobUsageEvent => event.type === 'job.billed');
  if (billed) return [jobInterval(billed, prices)];
  const intervals: DerivedInterval[] = [];
  let open: DerivedInterval | null = null;
  for (const event of inLifecycleOrder(events)) {
    const next = step(event, open?.phase ?? null);
    if (next.close && open) {
      const endedAt = new Date(event.occurredAt);
      if (endedAt.getTime() > open.startedAt.getTime()) intervals.push({ ...open, endedAt, endEventId: event.eventId });
      open = null;
    }
    if (next.open) open = opened(event, next.open, prices);
    if (next.final) break;
  }
  if (open) intervals.push(open);
  return intervals;
}

/** How stored intervals must change to match derived ones, and from when billing must be recomputed. */
export interface IntervalChanges {
  create: DerivedInterval[];
  update: DerivedInterval[];
  /** Event ids of stored intervals that no longer exist. */
  remove: string[];
  /** Earliest instant whose charges may differ; null when billing is unaffected. */
  dirtyFrom: Date | null;
}

const SAME_UNLESS_END: readonly (keyof DerivedInterval)[] = [
  'accountId',
  'resourceKind',
  'resourceId',
  'phase',
  'endpointId',
  'gpuTypeId',
  'gpuCount',
  'cpuFlavorId',
  'dataCenterId',
  'templateId',
  'imageName',
  'diskSpaceGb',
  'ratePerHr',
  'storageCostPerMonth',
  'flatAmount',
];

const time = (date: Date | null): number => (date === null ? Infinity : date.getTime());

// Where two versions of one interval (same opening event) start to bill differently; null when identical.
function firstDifference(before: DerivedInterval, after: DerivedInterval): number | null {
  const startMoved = before.startedAt.getTime() !== after.startedAt.getTime();
  if (startMoved || SAME_UNLESS_END.some((field) => before[field] !== after[field])) {
    return Math.min(before.startedAt.getTime(), after.startedAt.getTime());
  }
  if (time(before.endedAt) !== time(after.endedAt)) return Math.min(time(before.endedAt), time(after.endedAt));
  return before.endEventId === after.endEventId ? null : Infinity;
}

/** Compares the stored intervals of a resource with freshly derived ones (both keyed by opening event). */
export function diffIntervals(
  stored: readonly DerivedInterval[],
  derived: readonly DerivedInterval[],
): IntervalChanges {
  const before = new Map(stored.map((interval) => [interval.eventId, interval]));
  const changes: IntervalChanges = { create: [], update: [], remove: [], dirtyFrom: null };
  let dirty = Infinity;
  for (const interval of derived) {
    const old = before.get(interval.eventId);
    before.delete(interval.eventId);
    if (!old) {
      changes.create.push(interval);
      dirty = Math.min(dirty, interval.startedAt.getTime());
      continue;
    }
    const difference = firstDifference(old, interval);
    if (difference === null) continue;
    changes.update.push(interval);
    dirty = Math.min(dirty, difference);
  }
  for (const gone of before.values()) {
    changes.remove.push(gone.eventId);
    dirty = Math.min(dirty, gone.startedAt.getTime());
  }
  changes.dirtyFrom = Number.isFinite(dirty) ? new Date(dirty) : null;
  return changes;
}
