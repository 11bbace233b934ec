import { SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { startTelemetry, type Telemetry, withSpan } from './index';
import { spanTap } from './span-tap';

describe('withSpan', () => {
  const exporter = new InMemorySpanExporter();
  // The spans as the SDK ends them (status, events), handed over by the tap recordSpans uses.
  const processor = new SimpleSpanProcessor({ exporter });
  let telemetry: Telemetry;
  // An ended span is exported once the service's resource is detected.
  const finished = async () => {
    await processor.forceFlush();
    return exporter.getFinishedSpans();
  };

  beforeAll(() => {
    telemetry = startTelemetry({ serviceName: 'test' });
    spanTap.recorders.add(processor);
  });
  afterEach(() => exporter.reset());
  afterAll(async () => {
    spanTap.recorders.delete(processor);
    await telemetry.shutdown();
  });

  it('returns the result and ends the span with its attributes', async () => {
    const result = await withSpan('pods.create', async () => 42, { 'runplane.pod_id': 'p1', gpus: 2 });
    expect(result).toBe(42);
    const [span] = await finished();
    expect(span?.name).toBe('pods.create');
    expect(span?.attributes).toEqual({ 'runplane.pod_id': 'p1', gpus: 2 });
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
    expect(span?.ended).toBe(true);
  });

  it('rethrows, records the exception, sets error status and still ends the span', async () => {
    const failure = new Error('no capacity');
    await expect(withSpan('placement.place', () => Promise.reject(failure))).rejects.toBe(failure);
    const spans = await finished();
    expect(spans).toHaveLength(1);
    expect(spans[0]?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'no capacity' });
    expect(spans[0]?.events.map((e) => e.name)).toEqual(['exception']);
    expect(spans[0]?.events[0]?.attributes?.['exception.message']).toBe('no capacity');
  });

  it('handles non-Error rejections', async () => {
    await expect(withSpan('weird', () => Promise.reject('plain string'))).rejects.toBe('plain string');
    expect((await finished())[0]?.status.message).toBe('plain string');
  });
});
