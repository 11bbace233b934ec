import { startServiceTelemetry } from '@runplane/observability';
import { loadSchedulerConfig } from './config';

/** Parsed once, before anything else loads, so tracing covers the whole process. */
export const config = loadSchedulerConfig();
/** The scheduler's OpenTelemetry SDK, started on import. */
export const telemetry = startServiceTelemetry('scheduler', config);
