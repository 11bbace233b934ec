import { startServiceTelemetry } from '@runplane/observability';
import { loadBillingAggregatorConfig } from './config';

/** Parsed once, before anything else loads, so tracing covers the whole process. */
export const config = loadBillingAggregatorConfig();
/** The billing-aggregator's OpenTelemetry SDK, started on import. */
export const telemetry = startServiceTelemetry('billing-aggregator', config);
