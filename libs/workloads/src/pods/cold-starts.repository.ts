import type { DbClient } from '@runplane/db';

/**
 * Workers' cold-start phases (the Pod row's `coldStart`, phase → ISO time). A phase is written once: the first time
 * recorded wins, so a restarted scheduler that sees a phase again keeps the original time.
 */
export class ColdStartsRepository {
  constructor(private readonly db: DbClient) {}

  /** Adds the phases the row does not hold yet. */
  async record(podId: string, phases: Readonly<Record<string, Date>>): Promise<void> {
    const added = JSON.stringify(Object.fromEntries(Object.entries(phases).map(([k, at]) => [k, at.toISOString()])));
    await this.db.$executeRaw`
      UPDATE "pods" SET "coldStart" = ${added}::jsonb || COALESCE("coldStart", '{}'::jsonb) WHERE "id" = ${podId}`;
  }

  /** The phases a worker reached and when its row was created (its placement), or null when it has no row. */
  async read(podId: string): Promise<{ phases: Record<string, string>; createdAt: Date } | null> {
    const row = await this.db.pod.findUnique({ where: { id: podId }, select: { coldStart: true, createdAt: true } });
    if (!row) return null;
    const value = row.coldStart;
    const phases = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, string>) : {};
    return { phases, createdAt: row.createdAt };
  }
}
