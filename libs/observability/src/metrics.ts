import { BoundedLabel, type BoundedLabelOptions } from './bounded-label';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export type { Counter, Gauge, Histogram } from 'prom-client';

/** A per-app Prometheus registry with typed metric factories. */
export interface MetricsRegistry {
  /** Exposition text for GET /metrics. */
  metrics(): Promise<string>;
  /** Content-Type header value for the exposition text. */
  readonly contentType: string;
  counter<L extends string = string>(name: string, help: string, labelNames?: readonly L[]): Counter<L>;
  histogram<L extends string = string>(
    name: string,
    help: string,
    labelNames?: readonly L[],
    buckets?: number[],
  ): Histogram<L>;
  gauge<L extends string = string>(name: string, help: string, labelNames?: readonly L[]): Gauge<L>;
  /**
   * A gauge whose values `collect` sets at each scrape (e.g. read from Redis), after the previous ones are cleared so
   * a key that is gone leaves no stale value; a collect that throws leaves the gauge empty for that scrape.
   */
  collectedGauge<L extends string = string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    collect: (gauge: Gauge<L>) => Promise<void>,
  ): Gauge<L>;
  /** A counter without labels whose value is `read()` at each scrape (a total kept elsewhere, never decreasing). */
  collectedCounter(name: string, help: string, read: () => number): Counter;
  /** A bounded per-key label (see {@link BoundedLabel}) whose removed series are gone before the next exposition. */
  boundedLabel(options: BoundedLabelOptions): BoundedLabel;
}

class PromMetricsRegistry implements MetricsRegistry {
  private readonly bounded: BoundedLabel[] = [];

  constructor(private readonly registry: Registry) {}

  get contentType(): string {
    return this.registry.contentType;
  }

  async metrics(): Promise<string> {
    await Promise.all(this.bounded.map((label) => label.settled()));
    return this.registry.metrics();
  }

  boundedLabel(options: BoundedLabelOptions): BoundedLabel {
    const label = new BoundedLabel(options);
    this.bounded.push(label);
    return label;
  }

  collectedCounter(name: string, help: string, read: () => number): Counter {
    const existing = this.registry.getSingleMetric(name);
    if (existing instanceof Counter) return existing as Counter;
    return new Counter({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  }

  collectedGauge<L extends string = string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    collect: (gauge: Gauge<L>) => Promise<void>,
  ): Gauge<L> {
    const existing = this.registry.getSingleMetric(name);
    if (existing instanceof Gauge) return existing as Gauge<L>;
    return new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        await collect(this).catch(() => this.reset());
      },
    });
  }

  // Factories return the existing metric for a repeated name, so re-created modules (tests, restarts) don't throw.
  counter<L extends string = string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    const existing = this.registry.getSingleMetric(name);
    if (existing instanceof Counter) return existing as Counter<L>;
    return new Counter<L>({ name, help, labelNames, registers: [this.registry] });
  }

  histogram<L extends string = string>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    buckets?: number[],
  ): Histogram<L> {
    const existing = this.registry.getSingleMetric(name);
    if (existing instanceof Histogram) return existing as Histogram<L>;
    return new Histogram<L>({ name, help, labelNames, registers: [this.registry], ...(buckets ? { buckets } : {}) });
  }

  gauge<L extends string = string>(name: string, help: string, labelNames: readonly L[] = []): Gauge<L> {
    const existing = this.registry.getSingleMetric(name);
    if (existing instanceof Gauge) return existing as Gauge<L>;
    return new Gauge<L>({ name, help, labelNames, registers: [this.registry] });
  }
}

/** Per-app Prometheus registry with default Node metrics and a `service` default label. */
export function createMetricsRegistry(serviceName: string): MetricsRegistry {
  const registry = new Registry();
  registry.setDefaultLabels({ service: serviceName });
  collectDefaultMetrics({ register: registry });
  return new PromMetricsRegistry(registry);
}
