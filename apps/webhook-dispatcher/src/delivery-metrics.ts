import type { MetricsRegistry } from '@runplane/observability';
import type { DeliveryObserver } from '@runplane/webhooks';

/** From a receiver that answers at once to one that needed every retry (3 attempts, 10 s apart, 10 s each). */
const DELIVERY_SECONDS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/**
 * `runplane_webhook_attempts_total{outcome}` (delivered, http_error, network_error, refused) and
 * `runplane_webhook_delivery_seconds{status}` (succeeded, failed): from a delivery's acceptance to its end. Each
 * attempt is counted by the replica that recorded it, so sums over replicas are exact.
 */
export function deliveryMetrics(metrics: MetricsRegistry): DeliveryObserver {
  const attempts = metrics.counter('runplane_webhook_attempts_total', 'Webhook delivery attempts by outcome', [
    'outcome',
  ]);
  const deliveries = metrics.histogram(
    'runplane_webhook_delivery_seconds',
    'Time from a webhook delivery request to its success or final failure',
    ['status'],
    DELIVERY_SECONDS_BUCKETS,
  );
  return {
    attempted(outcome, ended) {
      attempts.inc({ outcome });
      if (ended) deliveries.observe({ status: ended.status }, ended.seconds);
    },
  };
}
