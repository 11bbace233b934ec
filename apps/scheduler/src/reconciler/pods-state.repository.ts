import type { DbClient, Pod } from '@runplane/db';

/** What the driver reported, written back to the Pod row. */
export interface ObservedFields {
  observedPhase: 'PENDING' | 'CREATING' | 'RUNNING' | 'EXITED' | 'FAILED' | 'TERMINATED' | 'UNKNOWN';
  statusMessage: string | null;
  publicIp: string | null;
  portMappings: Record<string, number> | null;
  lastStartedAt: Date | null;
}

/** Pod rows as the reconciler reads and writes them (all accounts: the scheduler serves the whole deployment). */
export class PodsStateRepository {
  constructor(private readonly db: DbClient) {}

  /** Pods that exist (terminated ones only until their workload is gone). */
  placed(): Promise<Pod[]> {
    return this.db.pod.findMany({ where: { machineId: { not: null } }, orderBy: { createdAt: 'asc' } });
  }

  async ids(): Promise<Set<string>> {
    return new Set((await this.db.pod.findMany({ select: { id: true } })).map((row) => row.id));
  }

  /**
   * Writes the observed fields of many Pods in one statement, with plain SQL so `updatedAt` (the optimistic-lock stamp
   * of user changes) is left alone: the reconciler's bookkeeping must never make a user's stop or restart fail with a
   * conflict.
   */
  async writeObservedMany(writes: { id: string; fields: ObservedFields }[], now: Date): Promise<void> {
    if (writes.length === 0) return;
    const values = writes.map(({ id, fields }) => ({
      id,
      phase: fields.observedPhase,
      message: fields.statusMessage,
      ip: fields.publicIp,
      mappings: fields.portMappings,
      started: fields.lastStartedAt?.toISOString() ?? null,
    }));
    // Timestamps are stored without zone, in UTC (as Prisma writes them).
    await this.db.$executeRaw`
      UPDATE "pods" AS p SET "observedPhase" = v."phase"::"PodPhase", "observedAt" = ${now},
        "statusMessage" = v."message", "publicIp" = v."ip", "portMappings" = v."mappings",
        "lastStartedAt" = COALESCE((v."started" AT TIME ZONE 'UTC')::timestamp(3), p."lastStartedAt")
      FROM jsonb_to_recordset(${JSON.stringify(values)}::jsonb)
        AS v("id" text, "phase" text, "message" text, "ip" text, "mappings" jsonb, "started" timestamptz)
      WHERE p."id" = v."id"`;
  }

  /** A preempted Pod is stopped by the platform (desiredStatus EXITED), unless its user changed it meanwhile. */
  async markInterrupted(id: string, now: Date): Promise<void> {
    const note = `Interrupted by Runplane: ${now.toUTCString()}`;
    await this.db.$executeRaw`
      UPDATE "pods" SET "desiredStatus" = 'EXITED'::"PodDesiredStatus", "lastStatusChange" = ${note}, "lastStatusChangeAt" = ${now}
      WHERE "id" = ${id} AND "desiredStatus" = 'RUNNING'`;
  }

  async remove(id: string): Promise<void> {
    await this.db.pod.deleteMany({ where: { id } });
  }
}
