// The usage ledger against real Postgres: entries saved together are one statement in which the last entry of a
// resource wins, and reads by kind see exactly what was saved.
import { createTestStores, type TestStores } from '@runplane/testing';
import { type LedgerEntry, UsageLedgerRepository } from './usage-ledger.repository';

const entry = (resourceId: string, extra: Partial<LedgerEntry> = {}): LedgerEntry => ({
  resourceId,
  kind: 'pod',
  accountId: 'a1',
  seq: 0,
  running: false,
  snapshot: {},
  ...extra,
});

describe('UsageLedgerRepository', () => {
  let stores: TestStores;
  let db: TestStores['db'];
  let ledger: UsageLedgerRepository;

  beforeAll(async () => {
    stores = await createTestStores('billing-usage-ledger');
    db = stores.db;
    ledger = new UsageLedgerRepository(db);
  });

  afterAll(() => stores?.close());

  it('saves many entries at once, the last one of a resource winning, and reads them back by kind', async () => {
    await ledger.saveMany([
      entry('p1', { running: true, seq: 1, snapshot: { startedAt: '2030-01-01T00:00:00.000Z' } }),
      entry('v1', { kind: 'volume', snapshot: { size: 10 } }),
      entry('p1', { running: false, seq: 1, snapshot: { startedAt: '2030-01-01T00:00:00.000Z' } }),
    ]);
    expect(await ledger.find('p1')).toEqual(
      entry('p1', { running: false, seq: 1, snapshot: { startedAt: '2030-01-01T00:00:00.000Z' } }),
    );
    expect(await ledger.listKind(['volume'])).toEqual([entry('v1', { kind: 'volume', snapshot: { size: 10 } })]);
    expect((await ledger.listKind(['pod', 'worker'])).map((saved) => saved.resourceId)).toEqual(['p1']);
  });

  it('overwrites an entry saved again, and forgets a removed one', async () => {
    await ledger.save(entry('w1', { kind: 'worker', running: true }));
    await ledger.save(entry('w1', { kind: 'worker', running: false, seq: 2 }));
    expect(await ledger.find('w1')).toEqual(entry('w1', { kind: 'worker', running: false, seq: 2 }));
    await ledger.remove('w1');
    expect(await ledger.find('w1')).toBeNull();
    await ledger.saveMany([]);
    expect(await db.usageLedger.count()).toBe(2);
  });
});
