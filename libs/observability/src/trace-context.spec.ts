import {
  activeTraceparent,
  recordSpans,
  type RecordedSpan,
  type SpanRecorder,
  traceIdOf,
  withIncomingSpan,
  withinTrace,
  withSpan,
  withSpanInTrace,
} from './index';

const FOREIGN = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('trace context across processes (traceparent)', () => {
  let recorder: SpanRecorder;
  let spans: RecordedSpan[] = [];
  const span = (name: string) => {
    const found = spans.find((each) => each.name === name);
    if (!found) throw new Error(`no span ${name} among ${spans.map((each) => each.name).join(', ')}`);
    return found;
  };
  const collect = async () => {
    spans = await recorder.spans();
  };

  beforeAll(() => {
    recorder = recordSpans();
  });
  afterEach(() => recorder.reset());
  afterAll(() => recorder.stop());

  it('reads the trace id of a traceparent, and nothing from what is not one', () => {
    expect(traceIdOf(FOREIGN)).toBe('0af7651916cd43dd8448eb211c80319c');
    for (const bad of [undefined, '', 'x', `00-${'0'.repeat(32)}-b7ad6b7169203331-01`, '00-abc-def-01']) {
      expect(traceIdOf(bad)).toBeUndefined();
    }
    expect(activeTraceparent()).toBeUndefined();
  });

  it("continues a request's traceparent header in a server span, or starts a trace without one", async () => {
    await withIncomingSpan({ traceparent: FOREIGN }, 'GET /continued', async () => undefined);
    await withIncomingSpan({}, 'GET /new', async () => undefined);
    await collect();
    expect(span('GET /continued')).toMatchObject({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      parentSpanId: 'b7ad6b7169203331',
      kind: 1,
    });
    expect(span('GET /new').parentSpanId).toBeUndefined();
    expect(span('GET /new').traceId).not.toBe('0af7651916cd43dd8448eb211c80319c');
  });

  it('runs work in the trace a traceparent names, unless the active span is in it already', async () => {
    const job = await withSpan('job.submit', async () => activeTraceparent());
    await withSpan('sweep', () => withinTrace(job, () => withSpan('relay', async () => undefined)));
    const inline = () =>
      withSpan('job.done', () => withinTrace(job, () => withSpan('relay-inline', async () => undefined)));
    await withinTrace(job, inline);
    await collect();
    const submit = span('job.submit');
    expect(span('relay')).toMatchObject({ traceId: submit.traceId, parentSpanId: submit.spanId });
    expect(span('relay-inline').parentSpanId).toBe(span('job.done').spanId);
    expect(span('relay').traceId).not.toBe(span('sweep').traceId);
  });

  it("makes a job's span a child of the request when it continued the job's trace, else links the request", async () => {
    const job = await withSpan('job.submit', async () => activeTraceparent());
    // A worker whose request carries a traceparent of its own (its polling loop), and one that sent the job's back.
    await withIncomingSpan({ traceparent: FOREIGN }, 'POST own trace', () =>
      withSpanInTrace(job, 'job.done', async () => undefined),
    );
    await withIncomingSpan({ traceparent: job }, 'POST job trace', () =>
      withSpanInTrace(job, 'job.stream', async () => undefined),
    );
    await collect();
    const submit = span('job.submit');
    const own = span('POST own trace');
    expect(span('job.done')).toMatchObject({
      traceId: submit.traceId,
      parentSpanId: submit.spanId,
      links: [{ traceId: own.traceId, spanId: own.spanId }],
    });
    const continued = span('POST job trace');
    expect(continued).toMatchObject({ traceId: submit.traceId, parentSpanId: submit.spanId });
    expect(span('job.stream')).toMatchObject({ traceId: submit.traceId, parentSpanId: continued.spanId, links: [] });
  });

  it('starts a span at a given time, and falls back to the active context without a traceparent', async () => {
    const startTime = Date.now() - 5_000;
    const job = await withSpan('job.submit', async () => activeTraceparent());
    await withSpanInTrace(job, 'job.take', async () => undefined, { startTime, attributes: { worker: 'w1' } });
    await withSpan('outer', () => withSpanInTrace(undefined, 'no job trace', async () => undefined));
    await collect();
    expect(span('job.take')).toMatchObject({ startMs: startTime, attributes: { worker: 'w1' } });
    expect(span('job.take').parentSpanId).toBe(span('job.submit').spanId);
    expect(span('no job trace').parentSpanId).toBe(span('outer').spanId);
  });

  it("leaves a server span's status unset for an error that is the caller's, and marks the server's", async () => {
    const callerError = new Error('no such job');
    const failure = (error: unknown) => error !== callerError;
    await expect(withIncomingSpan({}, 'GET /4xx', () => Promise.reject(callerError), { failure })).rejects.toBe(
      callerError,
    );
    await expect(
      withIncomingSpan({}, 'GET /5xx', () => Promise.reject(new Error('redis down')), { failure }),
    ).rejects.toThrow('redis down');
    await collect();
    expect([span('GET /4xx').failed, span('GET /5xx').failed]).toEqual([false, true]);
  });
});
