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
   * Writes observed fields with plain SQL so `updatedAt` (the optimistic-lock stamp of user changes) is left alone:
   * the reconciler's bookkeeping must never make a user's stop or restart fail with a conflict.
   */
  async writeObserved(id: string, fields: ObservedFields, now: Date): Promise<void> {
    const mappings = fields.portMappings === null ? null : JSON.stringify(fields.portMappings);
    await this.db.$executeRaw`
      UPDATE "pods" SET "observedPhase" = ${fields.observedPhase}::"PodPhase", "observedAt" = ${now},
        "statusMessage" = ${fields.statusMessage}, "publicIp" = ${fields.publicIp}, "portMappings" = ${mappings}::jsonb,
        "lastStartedAt" = COALESCE(${fields.lastStartedAt}, "lastStartedAt")
      WHERE "id" = ${id}`;
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
