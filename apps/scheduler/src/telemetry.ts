import { startTelemetry } from '@runplane/observability';
import { loadSchedulerConfig } from './config';

/** Parsed once, before anything else loads, so tracing covers the whole process. */
export const config = loadSchedulerConfig();
/** The scheduler's OpenTelemetry SDK, started on import. */
export const telemetry = startTelemetry({ serviceName: 'scheduler', otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
