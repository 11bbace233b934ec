import type { DbClient } from '@runplane/db';

/** What billing was last told about one resource (a Pod, a worker or a network volume). */
export interface LedgerEntry {
  resourceId: string;
  kind: 'pod' | 'worker' | 'volume';
  accountId: string;
  seq: number;
  running: boolean;
  snapshot: Record<string, unknown>;
}

function toEntry(row: {
  resourceId: string;
  kind: string;
  accountId: string;
  seq: number;
  running: boolean;
  snapshot: unknown;
}): LedgerEntry {
  return {
    resourceId: row.resourceId,
    kind: row.kind as LedgerEntry['kind'],
    accountId: row.accountId,
    seq: row.seq,
    running: row.running,
    snapshot: (row.snapshot ?? {}) as Record<string, unknown>,
  };
}

/**
 * The usage ledger table, which the scheduler keeps so that each usage event is published once. Keyed by resource id
 * (ids are unique across accounts); the scheduler meters every account, so no method takes one.
 */
export class UsageLedgerRepository {
  constructor(private readonly db: DbClient) {}

  async find(resourceId: string): Promise<LedgerEntry | null> {
    const row = await this.db.usageLedger.findUnique({ where: { resourceId } });
    return row ? toEntry(row) : null;
  }

  async listKind(kinds: LedgerEntry['kind'][]): Promise<LedgerEntry[]> {
    return (await this.db.usageLedger.findMany({ where: { kind: { in: kinds } } })).map(toEntry);
  }

  async save(entry: LedgerEntry): Promise<void> {
    await this.saveMany([entry]);
  }

  /** Saves many entries in one statement; of several entries for one resource, the last wins. */
  async saveMany(entries: LedgerEntry[]): Promise<void> {
    if (entries.length === 0) return;
    // One row per resource in a statement (ON CONFLICT may not touch a row twice).
    const latest = [...new Map(entries.map((entry) => [entry.resourceId, entry])).values()];
    await this.db.$executeRaw`
      INSERT INTO "usage_ledger" ("resourceId", "kind", "accountId", "seq", "running", "snapshot", "updatedAt")
      SELECT v."resourceId", v."kind", v."accountId", v."seq", v."running", v."snapshot", ${new Date()}
      FROM jsonb_to_recordset(${JSON.stringify(latest)}::jsonb)
        AS v("resourceId" text, "kind" text, "accountId" text, "seq" integer, "running" boolean, "snapshot" jsonb)
      ON CONFLICT ("resourceId") DO UPDATE SET "kind" = EXCLUDED."kind", "accountId" = EXCLUDED."accountId", "seq" = EXCLUDED."seq",
        "running" = EXCLUDED."running", "snapshot" = EXCLUDED."snapshot", "updatedAt" = EXCLUDED."updatedAt"`;
  }

  async remove(resourceId: string): Promise<void> {
    await this.db.usageLedger.deleteMany({ where: { resourceId } });
  }
}
