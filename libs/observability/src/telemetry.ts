import { context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, NoopSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace';

/** Options for startTelemetry. */
export interface TelemetryOptions {
  serviceName: string;
  /** OTLP/HTTP base URL (as OTEL_EXPORTER_OTLP_ENDPOINT); traces go to `<endpoint>/v1/traces`. */
  otlpEndpoint?: string;
}

/** Handle returned by startTelemetry. */
export interface Telemetry {
  shutdown(): Promise<void>;
}

interface ActiveSdk {
  sdk: NodeSDK;
  users: number;
}

// OpenTelemetry registers process-wide globals, so several apps sharing one process (npm start) share one SDK;
// the first caller's options win and the SDK stops when the last handle shuts down.
let active: ActiveSdk | undefined;

function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

function spanProcessors(otlpEndpoint: string | undefined): SpanProcessor[] {
  // Without an endpoint a no-op processor still gives us a real tracer provider, so trace ids exist for log
  // correlation and propagation, but nothing leaves the process.
  if (!otlpEndpoint) return [new NoopSpanProcessor()];
  return [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: tracesUrl(otlpEndpoint) }) })];
}

/** The OpenTelemetry settings of a service's configuration (`otelEnv` of @runplane/config). */
export interface ServiceTelemetryConfig {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_SERVICE_NAME?: string;
}

/** {@link startTelemetry} for a service: `OTEL_SERVICE_NAME`, when set, names it on traces instead of `serviceName`. */
export function startServiceTelemetry(serviceName: string, config: ServiceTelemetryConfig): Telemetry {
  return startTelemetry({ serviceName: config.OTEL_SERVICE_NAME ?? serviceName, otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
}

/** Start the OTel NodeSDK first thing in main(); exporter only when otlpEndpoint is set. */
export function startTelemetry(opts: TelemetryOptions): Telemetry {
  if (!active) {
    // Explicit empty readers/processors stop the SDK from creating OTLP exporters out of OTEL_* env defaults.
    const sdk = new NodeSDK({
      serviceName: opts.serviceName,
      spanProcessors: spanProcessors(opts.otlpEndpoint),
      metricReaders: [],
      logRecordProcessors: [],
      instrumentations: [],
    });
    sdk.start();
    active = { sdk, users: 0 };
  }
  const current = active;
  current.users += 1;
  let stopped = false;
  return {
    async shutdown() {
      if (stopped) return;
      stopped = true;
      current.users -= 1;
      if (current.users > 0) return;
      if (active === current) active = undefined;
      await current.sdk.shutdown();
      // Unregister the globals so a later startTelemetry in the same process (tests, restarts) can register again.
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
