/** The label value every key without a slot of its own is counted under. */
export const OTHER_LABEL = 'other';

/** A metric whose series of one key can be removed (prom-client's Counter, Gauge and Histogram). */
export interface RemovableMetric {
  get(): Promise<{ values: ReadonlyArray<{ labels: Partial<Record<string, string | number>> }> }>;
  remove(labels: Record<string, string | number>): void;
}

/** How many keys keep a label of their own, and when a key gives its slot up. */
export interface BoundedLabelOptions {
  /** Most keys with a label value of their own; every other key is {@link OTHER_LABEL}. */
  limit: number;
  /** A key not seen for this long gives its slot to a new key that needs one. */
  idleMs: number;
  now?: () => number;
}

/**
 * Keeps a per-key label (an endpoint id) bounded, so a deployment with thousands of endpoints does not make
 * thousands of series per metric. The first `limit` keys seen hold a slot and are their own label value; a key seen
 * while every slot is held is {@link OTHER_LABEL}, unless the slot held by the key seen least recently has been idle
 * for `idleMs`: then that key gives it up (its series are removed from every tracked metric, so at most `limit`
 * keys plus `other` are ever exposed) and the new key takes it. The active endpoints thus keep their labels and the
 * rest fold into `other`; sums over the label stay exact, as nothing is counted twice.
 */
export class BoundedLabel {
  private readonly lastSeen = new Map<string, number>();
  private readonly tracked: Array<{ metric: RemovableMetric; label: string }> = [];
  private readonly now: () => number;
  private removing: Promise<void> = Promise.resolve();

  constructor(private readonly options: BoundedLabelOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The label value for `key`, marking it active. */
  of(key: string): string {
    const now = this.now();
    if (this.lastSeen.has(key) || this.lastSeen.size < this.options.limit || this.evictIdle(now)) {
      // Re-inserting keeps the map ordered from least to most recently seen.
      this.lastSeen.delete(key);
      this.lastSeen.set(key, now);
      return key;
    }
    return OTHER_LABEL;
  }

  /** Keys holding a slot now, least recently seen first (what a collect-time gauge reports per key). */
  held(): string[] {
    return [...this.lastSeen.keys()];
  }

  /** Removes a key's series from `metric` (where its value is in label `label`) when the key gives its slot up. */
  track(metric: RemovableMetric, label: string): void {
    this.tracked.push({ metric, label });
  }

  /** Resolves once the series of every key that gave its slot up are removed (the registry waits before exposing). */
  settled(): Promise<void> {
    return this.removing;
  }

  private evictIdle(now: number): boolean {
    const [oldest, seenAt] = this.lastSeen.entries().next().value ?? [];
    if (oldest === undefined || seenAt === undefined || now - seenAt < this.options.idleMs) return false;
    this.lastSeen.delete(oldest);
    this.removing = this.removing.then(() => this.removeSeries(oldest));
    return true;
  }

  private async removeSeries(key: string): Promise<void> {
    for (const { metric, label } of this.tracked) {
      const seen = new Set<string>();
      for (const { labels } of (await metric.get()).values) {
        if (labels[label] !== key) continue;
        const { le: _bucket, ...series } = labels;
        const id = JSON.stringify(series);
        if (seen.has(id)) continue;
        seen.add(id);
        metric.remove(series as Record<string, string | number>);
      }
    }
  }
}
