import {
  type Context,
  context,
  isValidTraceId,
  type Link,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
} from '@opentelemetry/api';
import { spansRecorded } from './span-tap';

const TRACER_NAME = 'runplane';

/** Span attribute values accepted by withSpan. */
export type SpanAttributes = Record<string, string | number | boolean>;

/** What kind of work a span stands for, as OpenTelemetry's SpanKind (default internal). */
export type SpanRole = 'internal' | 'server' | 'client' | 'producer' | 'consumer';

const KINDS: Record<SpanRole, SpanKind> = {
  internal: SpanKind.INTERNAL,
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
};

/** How a span is started: its attributes, kind, links and (for work known only once done) its start time. */
interface SpanStart {
  attributes?: SpanAttributes;
  role?: SpanRole;
  links?: Link[];
  startTime?: number;
  /** Whether a thrown error is the span's failure (default: every error is). */
  failure?: (error: unknown) => boolean;
}

/** Records fn's failure on the span (exception, error status) and rethrows; ends the span either way. */
async function runInSpan<T>(span: Span, fn: () => Promise<T>, counts?: (error: unknown) => boolean): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (counts?.(error) === false) throw error;
    const err = error instanceof Error ? error : new Error(String(error));
    span.recordException(err);
    span.setStatus({ code: SpanStatusCode.ERROR, message: err.message });
    throw error;
  } finally {
    span.end();
  }
}

function startActive<T>(name: string, start: SpanStart, parent: Context, fn: () => Promise<T>): Promise<T> {
  const options = {
    ...(start.attributes ? { attributes: start.attributes as Attributes } : {}),
    ...(start.role ? { kind: KINDS[start.role] } : {}),
    ...(start.links && start.links.length > 0 ? { links: start.links } : {}),
    ...(start.startTime !== undefined ? { startTime: start.startTime } : {}),
  };
  return trace
    .getTracer(TRACER_NAME)
    .startActiveSpan(name, options, parent, (span) => runInSpan(span, fn, start.failure));
}

/**
 * Run fn in an active span; records exceptions, sets error status, always ends the span. When spans go nowhere (no
 * exporter, no recorder: {@link spansRecorded}) fn just runs, in the active trace context.
 */
export function withSpan<T>(
  name: string,
  fn: () => Promise<T>,
  attributes?: SpanAttributes,
  role?: SpanRole,
): Promise<T> {
  if (!spansRecorded()) return fn();
  return startActive(name, { attributes, role }, context.active(), fn);
}

/** W3C trace context of the active span, to carry in a queue payload or outbound request headers. */
export function injectTraceContext(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** Run fn with the trace context from injectTraceContext() as parent, so a job's spans join the producer's trace. */
export function withTraceContext<T>(carrier: IncomingHeaders | undefined, fn: () => T): T {
  if (!carrier) return fn();
  return context.with(propagation.extract(context.active(), carrier), fn);
}

/** Trace and span ids of the active span (for log correlation), or undefined outside a recorded span. */
export function activeTraceIds(): { traceId: string; spanId: string } | undefined {
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (!spanContext || !trace.isSpanContextValid(spanContext)) return undefined;
  return { traceId: spanContext.traceId, spanId: spanContext.spanId };
}

/** The W3C traceparent of the active span, or undefined outside a recorded span. */
export function activeTraceparent(): string | undefined {
  return activeTraceIds() ? injectTraceContext()['traceparent'] : undefined;
}

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The trace id a W3C traceparent names, or undefined when it is not one (or names no trace). */
export function traceIdOf(traceparent: string | undefined): string | undefined {
  const traceId = traceparent ? TRACEPARENT.exec(traceparent.trim())?.[1] : undefined;
  return traceId && isValidTraceId(traceId) ? traceId : undefined;
}

/** Run fn in the trace `traceparent` names: as it is when the active span is already in it, else under it. */
export function withinTrace<T>(traceparent: string | undefined, fn: () => T): T {
  const traceId = traceIdOf(traceparent);
  if (!traceId || activeTraceIds()?.traceId === traceId) return fn();
  return withTraceContext({ traceparent: traceparent ?? '' }, fn);
}

/** Options of {@link withSpanInTrace}. */
export interface TraceSpanOptions {
  attributes?: SpanAttributes;
  /** When the work began (ms since the epoch), for work whose trace is known only once it is done (a take). */
  startTime?: number;
}

/**
 * Run fn in a span of the trace `traceparent` names (a job's trace). When the active span is already in that trace
 * (the caller continued it, e.g. a worker that sent the job's traceparent), the span is its child; else the span is a
 * child of `traceparent` with a link to the active span (the request's own trace). Without a valid `traceparent`, it
 * is a plain {@link withSpan}.
 */
export function withSpanInTrace<T>(
  traceparent: string | undefined,
  name: string,
  fn: () => Promise<T>,
  options: TraceSpanOptions = {},
): Promise<T> {
  if (!spansRecorded()) return fn();
  const traceId = traceIdOf(traceparent);
  const active = trace.getActiveSpan()?.spanContext();
  const start = { attributes: options.attributes, startTime: options.startTime };
  if (!traceId || active?.traceId === traceId) return startActive(name, start, context.active(), fn);
  const links = active && trace.isSpanContextValid(active) ? [{ context: active }] : [];
  const parent = propagation.extract(context.active(), { traceparent: traceparent ?? '' });
  return startActive(name, { ...start, links }, parent, fn);
}

/** Incoming request headers, as Node and Fastify give them. */
export type IncomingHeaders = Record<string, string | string[] | undefined>;

/** Options of {@link withIncomingSpan}. */
export interface IncomingSpanOptions {
  attributes?: SpanAttributes;
  /** Whether a thrown error is the server's failure; a caller's error (an HTTP 4xx) leaves the span's status unset. */
  failure?: (error: unknown) => boolean;
}

/**
 * Run fn in a server span continuing the W3C trace context of a request's headers (`traceparent`, `tracestate`):
 * a child of the caller's span when it sent one, else the root of a new trace. When spans go nowhere, fn runs in the
 * caller's trace context if it sent one (so it is still carried on, e.g. into a job's record), else as it is.
 */
export function withIncomingSpan<T>(
  headers: IncomingHeaders,
  name: string,
  fn: () => Promise<T>,
  options: IncomingSpanOptions = {},
): Promise<T> {
  if (!spansRecorded()) return headers['traceparent'] === undefined ? fn() : withTraceContext(headers, fn);
  const parent = propagation.extract(context.active(), headers);
  return startActive(name, { ...options, role: 'server' }, parent, fn);
}

/** Adds attributes to the active span (what work learnt while it ran, e.g. an answer's status); none outside one. */
export function annotateActiveSpan(attributes: SpanAttributes): void {
  trace.getActiveSpan()?.setAttributes(attributes);
}
