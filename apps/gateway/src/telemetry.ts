import { startServiceTelemetry } from '@runplane/observability';
import { loadGatewayConfig } from './config';

/** Parsed once, before anything else loads, so tracing covers the whole process. */
export const config = loadGatewayConfig();
/** The gateway's OpenTelemetry SDK, started on import. */
export const telemetry = startServiceTelemetry('gateway', config);
