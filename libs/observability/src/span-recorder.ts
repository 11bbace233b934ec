import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { spanTap } from './span-tap';
import { startTelemetry } from './telemetry';

/** An ended span as a recorder keeps it: ids in hex, times in ms since the epoch. */
export interface RecordedSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  /** Spans of other traces this one is linked to. */
  links: { traceId: string; spanId: string }[];
  attributes: Record<string, unknown>;
  startMs: number;
  endMs: number;
  /** True when the span recorded an error status. */
  failed: boolean;
}

/** Spans ended in this process since {@link recordSpans}, for tests. */
export interface SpanRecorder {
  /** Every span ended so far, in the order they ended (once their export, which may wait for the resource, is done). */
  spans(): Promise<RecordedSpan[]>;
  reset(): void;
  stop(): Promise<void>;
}

const ms = ([seconds, nanos]: [number, number]): number => seconds * 1_000 + nanos / 1_000_000;

function recorded(span: ReadableSpan): RecordedSpan {
  const { traceId, spanId } = span.spanContext();
  return {
    name: span.name,
    kind: span.kind,
    traceId,
    spanId,
    ...(span.parentSpanContext ? { parentSpanId: span.parentSpanContext.spanId } : {}),
    links: span.links.map((link) => ({ traceId: link.context.traceId, spanId: link.context.spanId })),
    attributes: { ...span.attributes },
    startMs: ms(span.startTime),
    endMs: ms(span.endTime),
    failed: span.status.code === 2,
  };
}

/**
 * Records every span this process ends from now on, in memory (OpenTelemetry's InMemorySpanExporter), whichever
 * service started tracing first; tracing is started (service `serviceName`) if no service has yet.
 */
export function recordSpans(serviceName = 'test'): SpanRecorder {
  const telemetry = startTelemetry({ serviceName });
  const exporter = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor({ exporter });
  spanTap.recorders.add(processor);
  return {
    async spans() {
      await processor.forceFlush();
      return exporter.getFinishedSpans().map(recorded);
    },
    reset: () => exporter.reset(),
    async stop() {
      spanTap.recorders.delete(processor);
      await processor.shutdown();
      await telemetry.shutdown();
    },
  };
}
