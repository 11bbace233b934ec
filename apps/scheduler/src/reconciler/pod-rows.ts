import type { ObservedFields, PodRecord, PodState, PodsStateRepository } from '@runplane/workloads';
import { MicroBatch } from '../batching/micro-batch';

/**
 * The Pod rows of a reconciler pass. A pass works on hundreds of Pods at once, so the per-Pod writes and whole-row
 * reads made in the same turn of the event loop are batched: one statement per step, not one per Pod.
 */
export class PodRows {
  /** Observed fields written during a pass, one statement per turn of the event loop. */
  private readonly observedWrites = new MicroBatch<{ id: string; fields: ObservedFields }, void>(async (writes) => {
    await this.repository.writeObservedMany(writes, this.clock());
    return writes.map(() => undefined);
  });
  /** Whole rows, read together for the Pods of a pass that need them. */
  private readonly fullRows = new MicroBatch<string, PodRecord | null>(async (ids) => {
    const byId = new Map((await this.repository.rows([...new Set(ids)])).map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id) ?? null);
  });

  constructor(
    private readonly repository: PodsStateRepository,
    private readonly clock: () => Date,
  ) {}

  /** Every placed Pod, with what a pass decides on. */
  placed(): Promise<PodState[]> {
    return this.repository.placed();
  }

  /** A Pod's whole row; null when it is gone. */
  full(id: string): Promise<PodRecord | null> {
    return this.fullRows.load(id);
  }

  writeObserved(id: string, fields: ObservedFields): Promise<void> {
    return this.observedWrites.load({ id, fields });
  }

  /** Stops a preempted Pod and writes what was observed of it, in one transaction. */
  markInterrupted(id: string, now: Date, fields: ObservedFields): Promise<void> {
    return this.repository.markInterrupted(id, now, fields);
  }

  /** Which of these Pods still have a row. */
  existing(ids: string[]): Promise<Set<string>> {
    return this.repository.existing(ids);
  }
}
