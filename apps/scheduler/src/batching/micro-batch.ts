import { atTurnEnd } from '@runplane/event-loop';

interface Waiting<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

/**
 * Collects the calls made in the current event-loop turn (until its `'after-io'` edge, see @runplane/event-loop) and
 * answers them with one call of `run`, so a reconciler pass working on many Pods at once makes one query per step,
 * not one per Pod.
 * `run` answers the items in order; when it fails, every call of that batch fails with its error.
 */
export class MicroBatch<I, O> {
  private waiting: Waiting<I, O>[] = [];

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    /** Largest batch handed to `run` (bounded statements). */
    private readonly maxSize = 500,
  ) {}

  load(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (this.waiting.length === 1) atTurnEnd('after-io', () => this.flush());
      else if (this.waiting.length >= this.maxSize) this.flush();
    });
  }

  private flush(): void {
    const batch = this.waiting;
    if (batch.length === 0) return;
    this.waiting = [];
    this.run(batch.map((entry) => entry.item)).then(
      (results) => batch.forEach((entry, index) => entry.resolve(results[index] as O)),
      (error: unknown) => batch.forEach((entry) => entry.reject(error)),
    );
  }
}

/** Runs `work` on every item with at most `limit` running at once; resolves when all have ended, rejects with the first failure after that. */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item).catch((error: unknown) => void failures.push(error));
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failures.length > 0) throw failures[0];
}
