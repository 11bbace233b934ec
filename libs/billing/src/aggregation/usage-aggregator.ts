import type { StoragePrices, UsageEvent } from '@runplane/contracts';
import { type DatabaseClient, isForeignKeyViolation, type Prisma, withTransaction } from '@runplane/db';
import { computeCharges } from '../metering/charges';
import { deriveIntervals, diffIntervals } from '../metering/intervals';
import { hourOf } from '../metering/money';
import { resourceOf, type ResourceRef } from '../metering/resource';
import { ChargesRepository, type ChargeWrites } from './charges.repository';
import { UsageEventRejectedError } from './errors';
import { UsageRepository } from './usage.repository';

/** Milliseconds since the epoch; tests pass a fake clock. */
export interface Clock {
  now(): number;
}

/** What the aggregator needs beyond the database. */
export interface UsageAggregatorOptions {
  prices: StoragePrices;
  clock: Clock;
}

/** What became of one event. */
export type RecordOutcome = 'recorded' | 'duplicate';

/** What one roll-up did. */
export interface RollUpResult extends ChargeWrites {
  resources: number;
}

// Fields that may be filled in from the Pod row; an event that lacked them is still the same event.
const FILLED_FIELDS = ['templateId', 'imageName'] as const;

function canonical(event: UsageEvent, omit: readonly string[]): string {
  const entries = Object.entries(event).filter(([key, value]) => !omit.includes(key) && value !== undefined);
  return JSON.stringify(entries.sort(([a], [b]) => (a < b ? -1 : 1)));
}

function sameEvent(stored: UsageEvent, incoming: UsageEvent): boolean {
  const unset = FILLED_FIELDS.filter((field) => (incoming as Partial<Record<string, unknown>>)[field] === undefined);
  return canonical(stored, unset) === canonical(incoming, unset);
}

/**
 * Turns usage events into usage intervals and hourly billing records. Each event is one transaction under a
 * per-resource lock: the event is stored (a replay changes nothing), the resource's intervals are derived
 * again from all of its events (so delivery order does not matter), and the hours whose charges changed
 * are recomputed up to the clock's now. {@link rollUp} carries open intervals forward to now.
 */
export class UsageAggregator {
  constructor(
    private readonly db: DatabaseClient,
    private readonly options: UsageAggregatorOptions,
  ) {}

  /** Accepts one event. Throws {@link UsageEventRejectedError} for an event that can never be accepted. */
  async record(input: UsageEvent): Promise<RecordOutcome> {
    const event = { ...input, occurredAt: new Date(input.occurredAt).toISOString() };
    const resource = resourceOf(event);
    try {
      return await withTransaction(this.db, (tx) => this.recordIn(tx, resource, event), { timeoutMs: 30_000 });
    } catch (error) {
      if (isForeignKeyViolation(error))
        throw new UsageEventRejectedError('UNKNOWN_ACCOUNT', event.eventId, `no account "${event.accountId}"`);
      throw error;
    }
  }

  /** Bills every interval not yet billed to its end (open ones up to now); a re-run at the same now writes nothing. */
  async rollUp(): Promise<RollUpResult> {
    const now = new Date(this.options.clock.now());
    const result: RollUpResult = { resources: 0, created: 0, updated: 0, deleted: 0 };
    for (const pending of await new UsageRepository(this.db).pendingResources()) {
      const writes = await withTransaction(
        this.db,
        async (tx) => {
          await new UsageRepository(tx).lockResource(pending);
          return this.rebill(tx, pending, pending.from, now);
        },
        { timeoutMs: 30_000 },
      );
      result.resources += 1;
      result.created += writes.created;
      result.updated += writes.updated;
      result.deleted += writes.deleted;
    }
    return result;
  }

  private async recordIn(
    tx: Prisma.TransactionClient,
    resource: ResourceRef,
    event: UsageEvent,
  ): Promise<RecordOutcome> {
    const usage = new UsageRepository(tx);
    await usage.lockResource(resource);
    const owner = await usage.ownerOf(resource);
    if (owner !== null && owner !== event.accountId) {
      throw new UsageEventRejectedError(
        'ACCOUNT_MISMATCH',
        event.eventId,
        `${resource.kind} ${resource.id} belongs to another account`,
      );
    }
    const accepted = await this.withWorkload(usage, event);
    if (!(await usage.insertEvent(event.accountId, resource, accepted))) {
      const stored = await usage.findEvent(event.eventId);
      if (stored && sameEvent(stored.event, event)) return 'duplicate';
      throw new UsageEventRejectedError(
        'EVENT_ID_CONFLICT',
        event.eventId,
        'an event with this id and different content was recorded before',
      );
    }
    const derived = deriveIntervals(await usage.eventsOf(resource), this.options.prices);
    const changes = diffIntervals(await usage.intervalsOf(resource), derived);
    await usage.writeIntervals(changes);
    if (changes.dirtyFrom !== null)
      await this.rebill(tx, resource, changes.dirtyFrom, new Date(this.options.clock.now()));
    return 'recorded';
  }

  // Pod and worker events without template or image get them from the Pod row, so the stored event (and every
  // interval derived from it later) keeps them after the Pod is gone.
  private async withWorkload(usage: UsageRepository, event: UsageEvent): Promise<UsageEvent> {
    if ('networkVolumeId' in event || 'jobId' in event) return event;
    if (event.templateId !== undefined && event.imageName !== undefined) return event;
    const dims = await usage.podDimensions('podId' in event ? event.podId : event.workerId);
    return {
      ...event,
      templateId: event.templateId === undefined ? (dims?.templateId ?? null) : event.templateId,
      imageName: event.imageName === undefined ? (dims?.imageName ?? null) : event.imageName,
    };
  }

  // Recomputes the resource's hourly records from the hour of `from` up to `now`, and notes how far it is billed.
  private async rebill(
    tx: Prisma.TransactionClient,
    resource: ResourceRef,
    from: Date,
    now: Date,
  ): Promise<ChargeWrites> {
    const usage = new UsageRepository(tx);
    const charges = new ChargesRepository(tx);
    const hour = new Date(hourOf(from.getTime()));
    const intervals = await usage.intervalsBetween(resource, hour, now);
    const accountId = intervals[0]?.accountId ?? (await usage.ownerOf(resource));
    if (accountId === null) return { created: 0, updated: 0, deleted: 0 };
    const plans = resource.kind === 'POD' ? await usage.plansOf(resource.id, hour, now) : [];
    const wanted = computeCharges(intervals, plans, hour, now);
    const writes = await charges.replace(await charges.chargesFrom(accountId, resource, hour), wanted);
    await usage.markBilled(resource, now);
    return writes;
  }
}
