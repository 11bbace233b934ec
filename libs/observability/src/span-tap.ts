import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace';

/**
 * The span processor every tracer provider of startTelemetry carries: it hands ended spans to the recorders started
 * with {@link recordSpans} (none outside tests, so it costs a set lookup per span).
 */
class SpanTap implements SpanProcessor {
  readonly recorders = new Set<SpanProcessor>();

  onStart(span: Span, parentContext: Context): void {
    for (const recorder of this.recorders) recorder.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    for (const recorder of this.recorders) recorder.onEnd(span);
  }

  async forceFlush(): Promise<void> {
    await Promise.all([...this.recorders].map((recorder) => recorder.forceFlush()));
  }

  async shutdown(): Promise<void> {
    // Recorders outlive a provider's restart: each is removed by its own stop().
  }
}

/** The process's one tap, added to each tracer provider startTelemetry registers. */
export const spanTap = new SpanTap();

/** Whether the registered tracer provider exports its spans (an OTLP endpoint is configured). */
let exporting = false;

/** Set by startTelemetry: whether spans leave the process. */
export function setExporting(on: boolean): void {
  exporting = on;
}

/**
 * Whether spans go anywhere: to an exporter, or to a recorder of {@link recordSpans}. When not, the tracing helpers
 * make no span at all (a span nobody reads costs ids, attributes and a context switch per request).
 */
export function spansRecorded(): boolean {
  return exporting || spanTap.recorders.size > 0;
}
