import type { DbClient } from '@runplane/db';
import { MicroBatch } from '../batching/micro-batch';

/** What billing was last told about one resource. */
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
  return { ...row, kind: row.kind as LedgerEntry['kind'], snapshot: (row.snapshot ?? {}) as Record<string, unknown> };
}

/** The usage ledger table. */
export class UsageLedgerRepository {
  constructor(private readonly db: DbClient) {}

  async find(resourceId: string): Promise<LedgerEntry | null> {
    const row = await this.db.usageLedger.findUnique({ where: { resourceId } });
    return row ? toEntry(row) : null;
  }

  async listKind(kinds: LedgerEntry['kind'][]): Promise<LedgerEntry[]> {
    return (await this.db.usageLedger.findMany({ where: { kind: { in: kinds } } })).map(toEntry);
  }

  /** Saves an entry; entries saved in the same turn of the event loop (a pass seeing many starts) share one statement. */
  async save(entry: LedgerEntry): Promise<void> {
    await this.saving.load(entry);
  }

  private readonly saving = new MicroBatch<LedgerEntry, void>(async (entries) => {
    // One row per resource in a statement (ON CONFLICT may not touch a row twice): the last save wins.
    const latest = [...new Map(entries.map((entry) => [entry.resourceId, entry])).values()];
    await this.db.$executeRaw`
      INSERT INTO "usage_ledger" ("resourceId", "kind", "accountId", "seq", "running", "snapshot", "updatedAt")
      SELECT v."resourceId", v."kind", v."accountId", v."seq", v."running", v."snapshot", ${new Date()}
      FROM jsonb_to_recordset(${JSON.stringify(latest)}::jsonb)
        AS v("resourceId" text, "kind" text, "accountId" text, "seq" integer, "running" boolean, "snapshot" jsonb)
      ON CONFLICT ("resourceId") DO UPDATE SET "kind" = EXCLUDED."kind", "accountId" = EXCLUDED."accountId", "seq" = EXCLUDED."seq",
        "running" = EXCLUDED."running", "snapshot" = EXCLUDED."snapshot", "updatedAt" = EXCLUDED."updatedAt"`;
    return entries.map(() => undefined);
  });

  async remove(resourceId: string): Promise<void> {
    await this.db.usageLedger.deleteMany({ where: { resourceId } });
  }
}
