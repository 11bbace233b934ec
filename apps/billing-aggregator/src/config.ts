import { envInt, loadConfigOrExit, z } from '@runplane/config';
import { serviceEnvSchema } from '@runplane/http';

/** BillingAggregator environment: the common service settings, usage consumption and the roll-up. */
export const billingAggregatorEnvSchema = serviceEnvSchema(8084).extend({
  /** Usage events applied at once (events of one resource still apply one at a time). */
  USAGE_CONCURRENCY: envInt({ min: 1, max: 64, default: 4 }),
  /** How often open intervals (running Pods and workers, existing volumes) are billed up to now; 0 = never. */
  BILLING_ROLLUP_INTERVAL_MS: envInt({ min: 0, max: 3_600_000, default: 60_000 }),
  /** Catalog overrides file; its `storagePrices` section sets the storage prices billing uses. */
  RUNPLANE_CATALOG_FILE: z.string().trim().min(1).optional(),
});
/** Parsed billing-aggregator configuration. */
export type BillingAggregatorConfig = z.infer<typeof billingAggregatorEnvSchema>;

/** Parses the process environment once; a bad value stops the process with a message naming it. */
export function loadBillingAggregatorConfig(): BillingAggregatorConfig {
  return loadConfigOrExit(billingAggregatorEnvSchema, process.env);
}
