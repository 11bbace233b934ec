import { loadConfigOrExit } from '@runplane/config';
import { serviceEnvSchema } from '@runplane/http';

/** BillingAggregator environment. */
export const billingAggregatorEnvSchema = serviceEnvSchema(8084);
/** Parsed billing-aggregator configuration. */
export type BillingAggregatorConfig = ReturnType<typeof billingAggregatorEnvSchema.parse>;

/** Parses the process environment once; a bad value stops the process with a message naming it. */
export function loadBillingAggregatorConfig(): BillingAggregatorConfig {
  return loadConfigOrExit(billingAggregatorEnvSchema, process.env);
}
