import type { DbClient } from '@runplane/db';

/** Phases to add to a worker's row (see {@link ColdStartsRepository.recordMany}). */
export interface ColdStartRecord {
  podId: string;
  phases: Readonly<Record<string, Date>>;
}

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

  /**
   * Adds to each row the phases it does not hold yet, in one statement. Phases given twice for one Pod are merged,
   * the first given winning, as the row's own phases win over any given.
   */
  async recordMany(records: readonly ColdStartRecord[]): Promise<void> {
    const merged = new Map<string, Record<string, string>>();
    for (const { podId, phases } of records) {
      const iso = Object.fromEntries(Object.entries(phases).map(([phase, at]) => [phase, at.toISOString()]));
      merged.set(podId, { ...iso, ...merged.get(podId) });
    }
    if (merged.size === 0) return;
    const rows = JSON.stringify([...merged].map(([id, added]) => ({ id, added })));
    await this.db.$executeRaw`
      UPDATE "pods" AS p SET "coldStart" = v.added || COALESCE(p."coldStart", '{}'::jsonb)
      FROM jsonb_to_recordset(${rows}::jsonb) AS v(id text, added jsonb) WHERE p."id" = v.id`;
  }

  /** The phases each worker reached and when its row was created, in one query; a worker without a row is absent. */
  async readMany(podIds: readonly string[]): Promise<Map<string, ColdStartRow>> {
    const rows = await this.db.pod.findMany({
      where: { id: { in: [...podIds] } },
      select: { id: true, coldStart: true, createdAt: true },
    });
    return new Map(rows.map((row) => [row.id, { phases: phasesOf(row.coldStart), createdAt: row.createdAt }]));
  }
}
