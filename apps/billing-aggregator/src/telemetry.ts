import { startTelemetry } from '@runplane/observability';
import { loadBillingAggregatorConfig } from './config';

/** Parsed once, before anything else loads, so tracing covers the whole process. */
export const config = loadBillingAggregatorConfig();
/** The billing-aggregator's OpenTelemetry SDK, started on import. */
export const telemetry = startTelemetry({ serviceName: 'billing-aggregator', otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
