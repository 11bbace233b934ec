import { type UsageEvent, usageEventSchema } from '@runplane/contracts';
import { type DbClient, Prisma, type UsageInterval } from '@runplane/db';
import type { PlanWindow } from '../metering/charges';
import type { DerivedInterval } from '../metering/intervals';
import { money, RATE_DECIMALS } from '../metering/money';
import { resourceKey, type ResourceRef } from '../metering/resource';

/** A stored usage event: its account, and the event as accepted. */
export interface StoredEvent {
  accountId: string;
  event: UsageEvent;
}

/** A resource with intervals the roll-up has not billed to their end yet, and where billing must resume. */
export interface PendingResource extends ResourceRef {
  from: Date;
}

/** What a Pod row says about the workload, for events that do not carry it. */
export interface PodDimensions {
  templateId: string | null;
  imageName: string | null;
}

function toDerived(row: UsageInterval): DerivedInterval {
  return {
    eventId: row.eventId,
    endEventId: row.endEventId,
    accountId: row.accountId,
    resourceKind: row.resourceKind,
    resourceId: row.resourceId,
    phase: row.phase,
    endpointId: row.endpointId,
    gpuTypeId: row.gpuTypeId,
    gpuCount: row.gpuCount,
    cpuFlavorId: row.cpuFlavorId,
    dataCenterId: row.dataCenterId,
    templateId: row.templateId,
    imageName: row.imageName,
    diskSpaceGb: row.diskSpaceGb,
    ratePerHr: money(row.ratePerHr).toFixed(RATE_DECIMALS),
    storageCostPerMonth: money(row.storageCostPerMonth).toFixed(RATE_DECIMALS),
    flatAmount: money(row.flatAmount).toFixed(RATE_DECIMALS),
    startedAt: row.startedAt,
    endedAt: row.endedAt,
  };
}

const resourceWhere = (resource: ResourceRef) => ({ resourceKind: resource.kind, resourceId: resource.id });

/** Usage events and the intervals derived from them; every method runs on the caller's transaction. */
export class UsageRepository {
  constructor(private readonly db: DbClient) {}

  /** Serialises work on one resource across transactions and replicas (released at commit or rollback). */
  async lockResource(resource: ResourceRef): Promise<void> {
    await this.db
      .$queryRaw`SELECT 1 AS "locked" FROM (SELECT pg_advisory_xact_lock(hashtextextended(${resourceKey(resource)}, 0))) AS "lock"`;
  }

  /** Stores an event; false when one with its id is already stored (a replay). */
  async insertEvent(accountId: string, resource: ResourceRef, event: UsageEvent): Promise<boolean> {
    const { count } = await this.db.usageEvent.createMany({
      data: [
        {
          eventId: event.eventId,
          accountId,
          ...resourceWhere(resource),
          type: event.type,
          occurredAt: new Date(event.occurredAt),
          payload: event as unknown as Prisma.InputJsonObject,
        },
      ],
      skipDuplicates: true,
    });
    return count === 1;
  }

  /** The stored event with this id, or null. */
  async findEvent(eventId: string): Promise<StoredEvent | null> {
    const row = await this.db.usageEvent.findUnique({ where: { eventId } });
    return row === null ? null : { accountId: row.accountId, event: usageEventSchema.parse(row.payload) };
  }

  /** The account that owns the resource's events so far (null when it has none). */
  async ownerOf(resource: ResourceRef): Promise<string | null> {
    const row = await this.db.usageEvent.findFirst({ where: resourceWhere(resource), select: { accountId: true } });
    return row?.accountId ?? null;
  }

  /** Every stored event of the resource. */
  async eventsOf(resource: ResourceRef): Promise<UsageEvent[]> {
    const rows = await this.db.usageEvent.findMany({ where: resourceWhere(resource), orderBy: { occurredAt: 'asc' } });
    return rows.map((row) => usageEventSchema.parse(row.payload));
  }

  /** The resource's stored intervals. */
  async intervalsOf(resource: ResourceRef): Promise<DerivedInterval[]> {
    return (await this.db.usageInterval.findMany({ where: resourceWhere(resource) })).map(toDerived);
  }

  /** The resource's intervals that overlap [from, until). */
  async intervalsBetween(resource: ResourceRef, from: Date, until: Date): Promise<DerivedInterval[]> {
    const rows = await this.db.usageInterval.findMany({
      where: {
        ...resourceWhere(resource),
        startedAt: { lt: until },
        OR: [{ endedAt: null }, { endedAt: { gt: from } }],
      },
    });
    return rows.map(toDerived);
  }

  /** Applies an interval diff: removals first, so a re-derived interval can take over an event id. */
  async writeIntervals(changes: {
    create: DerivedInterval[];
    update: DerivedInterval[];
    remove: string[];
  }): Promise<void> {
    if (changes.remove.length > 0)
      await this.db.usageInterval.deleteMany({ where: { eventId: { in: changes.remove } } });
    for (const interval of changes.update) {
      // endEventId is unique: clear it first in case another updated interval hands its end event over.
      await this.db.usageInterval.update({ where: { eventId: interval.eventId }, data: { endEventId: null } });
    }
    for (const interval of changes.update)
      await this.db.usageInterval.update({ where: { eventId: interval.eventId }, data: interval });
    if (changes.create.length > 0) {
      await this.db.usageInterval.createMany({
        data: changes.create.map((interval) => ({ id: interval.eventId, ...interval })),
      });
    }
  }

  /** Records that billing now holds the resource's usage up to `now` (closed intervals: up to their end). */
  async markBilled(resource: ResourceRef, now: Date): Promise<void> {
    // Columns hold UTC without a zone: convert the instant explicitly, whatever the session's TimeZone.
    const until = Prisma.sql`LEAST(COALESCE("endedAt", ${now.toISOString()}::timestamptz AT TIME ZONE 'UTC'), ${now.toISOString()}::timestamptz AT TIME ZONE 'UTC')`;
    await this.db.$executeRaw`
      UPDATE "usage_intervals" SET "billedUntil" = ${until}, "updatedAt" = now() AT TIME ZONE 'UTC'
      WHERE "resourceKind" = ${resource.kind}::"UsageResourceKind" AND "resourceId" = ${resource.id}
        AND "billedUntil" IS DISTINCT FROM ${until}`;
  }

  /** Resources whose intervals are not billed to their end (open ones never are), with where to resume. */
  pendingResources(): Promise<PendingResource[]> {
    return this.db.$queryRaw<PendingResource[]>`
      SELECT "resourceKind" AS "kind", "resourceId" AS "id", MIN(COALESCE("billedUntil", "startedAt")) AS "from"
      FROM "usage_intervals"
      WHERE "billedUntil" IS NULL OR "endedAt" IS NULL OR "endedAt" > "billedUntil"
      GROUP BY 1, 2
      ORDER BY 3`;
  }

  /** Savings plans of a Pod that overlap [from, until). */
  async plansOf(podId: string, from: Date, until: Date): Promise<PlanWindow[]> {
    const rows = await this.db.savingsPlan.findMany({
      where: { podId, startTime: { lt: until }, endTime: { gt: from } },
    });
    return rows.map((row) => ({
      costPerHr: money(row.costPerHr).toFixed(RATE_DECIMALS),
      startTime: row.startTime,
      endTime: row.endTime,
    }));
  }

  /** Template and image of a Pod or worker as its row says now (the endpoint's template for a worker without one). */
  async podDimensions(podId: string): Promise<PodDimensions | null> {
    const pod = await this.db.pod.findUnique({
      where: { id: podId },
      select: { image: true, templateId: true, endpoint: { select: { templateId: true } } },
    });
    if (pod === null) return null;
    return { imageName: pod.image, templateId: pod.templateId ?? pod.endpoint?.templateId ?? null };
  }
}
