import { context, propagation, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';

const TRACER_NAME = 'runplane';

/** Span attribute values accepted by withSpan. */
export type SpanAttributes = Record<string, string | number | boolean>;

/** Run fn in an active span; records exceptions, sets error status, always ends the span. */
export function withSpan<T>(name: string, fn: () => Promise<T>, attributes?: SpanAttributes): Promise<T> {
  const tracer = trace.getTracer(TRACER_NAME);
  const options = attributes ? { attributes: attributes as Attributes } : {};
  return tracer.startActiveSpan(name, options, async (span) => {
    try {
      return await fn();
    } catch (error) {
      const err = error instanceof Error ? error : new Error(String(error));
      span.recordException(err);
      span.setStatus({ code: SpanStatusCode.ERROR, message: err.message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** W3C trace context of the active span, to carry in a queue payload or outbound request headers. */
export function injectTraceContext(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** Run fn with the trace context from injectTraceContext() as parent, so a job's spans join the producer's trace. */
export function withTraceContext<T>(carrier: Record<string, string> | undefined, fn: () => T): T {
  if (!carrier) return fn();
  return context.with(propagation.extract(context.active(), carrier), fn);
}

/** Trace and span ids of the active span (for log correlation), or undefined outside a recorded span. */
export function activeTraceIds(): { traceId: string; spanId: string } | undefined {
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (!spanContext || !trace.isSpanContextValid(spanContext)) return undefined;
  return { traceId: spanContext.traceId, spanId: spanContext.spanId };
}
