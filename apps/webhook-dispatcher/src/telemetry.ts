import { startServiceTelemetry } from '@runplane/observability';
import { loadWebhookDispatcherConfig } from './config';

/** Parsed once, before anything else loads, so tracing covers the whole process. */
export const config = loadWebhookDispatcherConfig();
/** The webhook-dispatcher's OpenTelemetry SDK, started on import. */
export const telemetry = startServiceTelemetry('webhook-dispatcher', config);
