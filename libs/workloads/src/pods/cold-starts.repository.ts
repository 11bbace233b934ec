import type { DbClient } from '@runplane/db';

/** A worker's recorded phases (phase → ISO time) and when its row was created. */
export interface ColdStartRow {
  phases: Record<string, string>;
  createdAt: Date;
}

const phasesOf = (value: unknown): Record<string, string> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, string>) : {};

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
  async read(podId: string): Promise<ColdStartRow | null> {
    return (await this.readMany([podId])).get(podId) ?? null;
  }

  /** {@link read} for many workers in one query; a worker without a row is absent. */
  async readMany(podIds: readonly string[]): Promise<Map<string, ColdStartRow>> {
    const rows = await this.db.pod.findMany({
      where: { id: { in: [...podIds] } },
      select: { id: true, coldStart: true, createdAt: true },
    });
    return new Map(rows.map((row) => [row.id, { phases: phasesOf(row.coldStart), createdAt: row.createdAt }]));
  }
}
