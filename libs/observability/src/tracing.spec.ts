import { SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { withSpan } from './index';

describe('withSpan', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });

  beforeAll(() => {
    expect(trace.setGlobalTracerProvider(provider)).toBe(true);
  });
  afterEach(() => exporter.reset());
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
  });

  it('returns the result and ends the span with its attributes', async () => {
    const result = await withSpan('pods.create', async () => 42, { 'runplane.pod_id': 'p1', gpus: 2 });
    expect(result).toBe(42);
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe('pods.create');
    expect(span?.attributes).toEqual({ 'runplane.pod_id': 'p1', gpus: 2 });
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
    expect(span?.ended).toBe(true);
  });

  it('rethrows, records the exception, sets error status and still ends the span', async () => {
    const failure = new Error('no capacity');
    await expect(withSpan('placement.place', () => Promise.reject(failure))).rejects.toBe(failure);
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(1);
    expect(spans[0]?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'no capacity' });
    expect(spans[0]?.events.map((e) => e.name)).toEqual(['exception']);
    expect(spans[0]?.events[0]?.attributes?.['exception.message']).toBe('no capacity');
  });

  it('handles non-Error rejections', async () => {
    await expect(withSpan('weird', () => Promise.reject('plain string'))).rejects.toBe('plain string');
    expect(exporter.getFinishedSpans()[0]?.status.message).toBe('plain string');
  });
});
