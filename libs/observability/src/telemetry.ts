import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import type { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import {
  defaultResource,
  detectResources,
  envDetector,
  hostDetector,
  osDetector,
  processDetector,
  resourceFromAttributes,
  serviceInstanceIdDetector,
} from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { setExporting, spanTap } from './span-tap';

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
  provider: TracerProvider;
  users: number;
}

// OpenTelemetry registers process-wide globals, so several apps sharing one process (npm start) share one SDK;
// the first caller's options win and the SDK stops when the last handle shuts down.
let active: ActiveSdk | undefined;

function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

function spanProcessors(otlpEndpoint: string | undefined): SpanProcessor[] {
  // Without an endpoint the provider only serves the recorders of recordSpans (tests); with none, the tracing
  // helpers make no spans (see spansRecorded), and an incoming trace context is only carried on.
  if (!otlpEndpoint) return [];
  // Loaded only when traces leave the process: the exporter and its OTLP encoders cost every service ~10 MB.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const exporter = require('@opentelemetry/exporter-trace-otlp-http') as {
    OTLPTraceExporter: typeof OTLPTraceExporter;
  };
  return [new BatchSpanProcessor({ exporter: new exporter.OTLPTraceExporter({ url: tracesUrl(otlpEndpoint) }) })];
}

/** The OpenTelemetry settings of a service's configuration (`otelEnv` of @runplane/config). */
export interface ServiceTelemetryConfig {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_SERVICE_NAME?: string;
}

/** {@link startTelemetry} for a service: `OTEL_SERVICE_NAME`, when set, names it on traces instead of `serviceName`. */
export function startServiceTelemetry(serviceName: string, config: ServiceTelemetryConfig): Telemetry {
  return startTelemetry({
    serviceName: config.OTEL_SERVICE_NAME ?? serviceName,
    otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
  });
}

/**
 * What the OpenTelemetry NodeSDK sets up for traces (W3C trace-context and baggage propagation over
 * AsyncLocalStorage, a resource from the NodeSDK's default detectors named after the service), without the SDK's
 * metrics, logs and exporter packages, which a service would load and never use.
 */
function registerTracing(opts: TelemetryOptions): TracerProvider {
  const detected = detectResources({
    detectors: [hostDetector, osDetector, serviceInstanceIdDetector, processDetector, envDetector],
  });
  const provider = new TracerProvider({
    resource: defaultResource()
      .merge(detected)
      .merge(resourceFromAttributes({ 'service.name': opts.serviceName })),
    spanProcessors: [...spanProcessors(opts.otlpEndpoint), spanTap],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  trace.setGlobalTracerProvider(provider);
  return provider;
}

/** Start tracing first thing in main(); exporter only when otlpEndpoint is set. */
export function startTelemetry(opts: TelemetryOptions): Telemetry {
  if (!active) {
    active = { provider: registerTracing(opts), users: 0 };
    setExporting(Boolean(opts.otlpEndpoint));
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
      if (active === current) {
        active = undefined;
        setExporting(false);
      }
      await current.provider.shutdown();
      // Unregister the globals so a later startTelemetry in the same process (tests, restarts) can register again.
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
