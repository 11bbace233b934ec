import type { LedgerEntry, UsageLedgerRepository } from '@runplane/billing';
import { MicroBatch } from '../batching/micro-batch';
import type { UsageLedger } from './usage-recorder';

/**
 * The usage ledger with its saves batched: entries saved in the same turn of the event loop (a pass seeing many
 * starts) share one statement. Reads and removals go straight to the table.
 */
export function batchedSaves(ledger: UsageLedgerRepository): UsageLedger {
  const saving = new MicroBatch<LedgerEntry, void>(async (entries) => {
    await ledger.saveMany(entries);
    return entries.map(() => undefined);
  });
  return {
    find: (resourceId) => ledger.find(resourceId),
    listKind: (kinds) => ledger.listKind(kinds),
    save: (entry) => saving.load(entry),
    remove: (resourceId) => ledger.remove(resourceId),
  };
}
