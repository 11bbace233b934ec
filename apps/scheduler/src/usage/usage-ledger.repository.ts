import type { DbClient, Prisma } from '@runplane/db';

/** What billing was last told about one resource. */
export interface LedgerEntry {
  resourceId: string;
  kind: 'pod' | 'worker' | 'volume';
  accountId: string;
  seq: number;
  running: boolean;
  snapshot: Record<string, unknown>;
}

function toEntry(row: { resourceId: string; kind: string; accountId: string; seq: number; running: boolean; snapshot: unknown }): LedgerEntry {
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

  async save(entry: LedgerEntry): Promise<void> {
    const data = { kind: entry.kind, accountId: entry.accountId, seq: entry.seq, running: entry.running, snapshot: entry.snapshot as Prisma.InputJsonValue };
    await this.db.usageLedger.upsert({ where: { resourceId: entry.resourceId }, create: { resourceId: entry.resourceId, ...data }, update: data });
  }

  async remove(resourceId: string): Promise<void> {
    await this.db.usageLedger.deleteMany({ where: { resourceId } });
  }
}
