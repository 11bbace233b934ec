export { startServiceTelemetry, startTelemetry } from './telemetry';
export type { ServiceTelemetryConfig, Telemetry, TelemetryOptions } from './telemetry';
export { createLogger, redactionPaths } from './logger';
export type { Logger, LoggerOptions } from './logger';
export { createMetricsRegistry } from './metrics';
export type { Counter, Gauge, Histogram, MetricsRegistry } from './metrics';
export { activeTraceIds, injectTraceContext, withSpan, withTraceContext } from './tracing';
export type { SpanAttributes } from './tracing';
