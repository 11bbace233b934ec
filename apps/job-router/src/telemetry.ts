import { startServiceTelemetry } from '@runplane/observability';
import { loadJobRouterConfig } from './config';

/** Parsed once, before anything else loads, so tracing covers the whole process. */
export const config = loadJobRouterConfig();
/** The job-router's OpenTelemetry SDK, started on import. */
export const telemetry = startServiceTelemetry('job-router', config);
