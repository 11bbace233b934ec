import type { DbClient, Pod, Prisma } from '@runplane/db';

const STATE_SELECT = {
  id: true,
  accountId: true,
  endpointId: true,
  desiredStatus: true,
  generation: true,
  observedPhase: true,
  statusMessage: true,
  publicIp: true,
  portMappings: true,
  serviceAddress: true,
  healthAddress: true,
  lastStartedAt: true,
  createdAt: true,
} satisfies Prisma.PodSelect;

/**
 * A Pod as a reconciler pass sees it: its desired state and what was last observed. Passes run on every cluster
 * change over every Pod, so they read only these columns; whole rows are read for the few Pods that need them.
 */
export type PodState = Prisma.PodGetPayload<{ select: typeof STATE_SELECT }>;

/** A Pod's whole row, read for the few Pods a pass starts or reports usage of. */
export type PodRecord = Pod;

/** What the driver reported, written back to the Pod row. */
export interface ObservedFields {
  observedPhase: 'PENDING' | 'CREATING' | 'RUNNING' | 'EXITED' | 'FAILED' | 'TERMINATED' | 'UNKNOWN';
  statusMessage: string | null;
  publicIp: string | null;
  portMappings: Record<string, number> | null;
  /** Load-balancing workers: where the job-router reaches their HTTP and health servers ("host:port"). */
  serviceAddress: string | null;
  healthAddress: string | null;
  lastStartedAt: Date | null;
}

/** Pod rows as the reconciler reads and writes them (all accounts: the scheduler serves the whole deployment). */
export class PodsStateRepository {
  constructor(private readonly db: DbClient) {}

  /** Pods that exist (terminated ones only until their workload is gone), with what a pass decides on. */
  placed(): Promise<PodState[]> {
    return this.db.pod.findMany({
      where: { machineId: { not: null } },
      select: STATE_SELECT,
      orderBy: { createdAt: 'asc' },
    });
  }

  /** Whole rows of some Pods (those a pass starts, or whose usage it reports); missing ones are left out. */
  rows(ids: string[]): Promise<PodRecord[]> {
    return this.db.pod.findMany({ where: { id: { in: ids } } });
  }

  /** Which of these Pods still have a row. */
  async existing(ids: string[]): Promise<Set<string>> {
    return new Set(
      (await this.db.pod.findMany({ where: { id: { in: ids } }, select: { id: true } })).map((row) => row.id),
    );
  }

  /**
   * Writes the observed fields of many Pods in one statement, with plain SQL so `updatedAt` (the optimistic-lock stamp
   * of user changes) is left alone: the reconciler's bookkeeping must never make a user's stop or restart fail with a
   * conflict.
   */
  async writeObservedMany(writes: { id: string; fields: ObservedFields }[], now: Date): Promise<void> {
    if (writes.length > 0) await this.observedStatement(writes, now);
  }

  /** The statement of writeObservedMany (not yet run: awaiting it runs it alone, `$transaction` with others). */
  private observedStatement(writes: { id: string; fields: ObservedFields }[], now: Date) {
    const values = writes.map(({ id, fields }) => ({
      id,
      phase: fields.observedPhase,
      message: fields.statusMessage,
      ip: fields.publicIp,
      mappings: fields.portMappings,
      service: fields.serviceAddress,
      health: fields.healthAddress,
      started: fields.lastStartedAt?.toISOString() ?? null,
    }));
    // Timestamps are stored without zone, in UTC (as Prisma writes them).
    return this.db.$executeRaw`
      UPDATE "pods" AS p SET "observedPhase" = v."phase"::"PodPhase", "observedAt" = ${now},
        "statusMessage" = v."message", "publicIp" = v."ip", "portMappings" = v."mappings",
        "serviceAddress" = v."service", "healthAddress" = v."health",
        "lastStartedAt" = COALESCE((v."started" AT TIME ZONE 'UTC')::timestamp(3), p."lastStartedAt")
      FROM jsonb_to_recordset(${JSON.stringify(values)}::jsonb)
        AS v("id" text, "phase" text, "message" text, "ip" text, "mappings" jsonb, "service" text, "health" text,
          "started" timestamptz)
      WHERE p."id" = v."id"`;
  }

  /**
   * A preempted Pod is stopped by the platform (desiredStatus EXITED), unless its user changed it meanwhile, and what
   * was observed of it is written in the same transaction.
   */
  async markInterrupted(id: string, now: Date, fields: ObservedFields): Promise<void> {
    const note = `Interrupted by Runplane: ${now.toUTCString()}`;
    await this.db.$transaction([
      this.db.$executeRaw`
        UPDATE "pods" SET "desiredStatus" = 'EXITED'::"PodDesiredStatus", "lastStatusChange" = ${note}, "lastStatusChangeAt" = ${now}
        WHERE "id" = ${id} AND "desiredStatus" = 'RUNNING'`,
      this.observedStatement([{ id, fields }], now),
    ]);
  }

  async remove(id: string): Promise<void> {
    await this.db.pod.deleteMany({ where: { id } });
  }
}
