import type { Histogram, MetricsRegistry } from '@runplane/observability';

/** Seconds: from a fraction of a second (a ping) to ten minutes (a large image pull). */
const BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600];

/** `runplane_worker_cold_start_seconds{phase}`: how long each cold-start phase took after the one before it. */
export function coldStartHistogram(registry: MetricsRegistry): Histogram<'phase'> {
  return registry.histogram(
    'runplane_worker_cold_start_seconds',
    'Seconds a worker took to reach each cold-start phase from the phase before it (placed → scheduled → imagePulled → containerStarted → firstPing → firstJob)',
    ['phase'],
    BUCKETS,
  );
}
