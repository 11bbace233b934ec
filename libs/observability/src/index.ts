export { startServiceTelemetry, startTelemetry } from './telemetry';
export type { ServiceTelemetryConfig, Telemetry, TelemetryOptions } from './telemetry';
export { createLogger, redactionPaths } from './logger';
export type { Logger, LoggerOptions } from './logger';
export { createMetricsRegistry } from './metrics';
export type { Counter, Gauge, Histogram, MetricsRegistry } from './metrics';
export {
  activeTraceIds,
  activeTraceparent,
  annotateActiveSpan,
  injectTraceContext,
  traceIdOf,
  withIncomingSpan,
  withinTrace,
  withSpan,
  withSpanInTrace,
  withTraceContext,
} from './tracing';
export type { IncomingHeaders, IncomingSpanOptions, SpanAttributes, SpanRole, TraceSpanOptions } from './tracing';
export { recordSpans } from './span-recorder';
export { spansRecorded } from './span-tap';
export type { RecordedSpan, SpanRecorder } from './span-recorder';
export { BoundedLabel, OTHER_LABEL } from './bounded-label';
export type { BoundedLabelOptions, RemovableMetric } from './bounded-label';
