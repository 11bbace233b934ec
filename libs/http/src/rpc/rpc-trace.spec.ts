import { recordSpans, type SpanRecorder, traceIdOf } from '@runplane/observability';
import { callTraced, handleTraced } from './rpc-trace';

describe('RPC trace context', () => {
  let recorder: SpanRecorder;

  beforeAll(() => {
    recorder = recordSpans();
  });
  afterEach(() => recorder.reset());
  afterAll(() => recorder.stop());

  it('sends the call span in the message and continues it in the handler, the message otherwise unchanged', async () => {
    const seen: unknown[] = [];
    const reply = await callTraced('placement.reserve', { podId: 'p1' }, (message) => {
      seen.push(message);
      return handleTraced('placement.reserve', JSON.parse(JSON.stringify(message)), async () => 'placed');
    });
    expect(reply).toBe('placed');
    const [message] = seen as { podId: string; trace: { traceparent: string } }[];
    expect(message?.podId).toBe('p1');
    const [served, call] = await recorder.spans();
    expect(call).toMatchObject({ name: 'placement.reserve', kind: 2, traceId: traceIdOf(message?.trace.traceparent) });
    expect(served).toMatchObject({
      name: 'placement.reserve',
      kind: 1,
      traceId: call?.traceId,
      parentSpanId: call?.spanId,
    });
  });

  it('starts a trace of its own for a message without a usable trace context', async () => {
    for (const message of [{ podId: 'p1' }, { trace: 'x' }, { trace: { traceparent: 7 } }, null, 'text']) {
      await handleTraced('placement.reserve', message, async () => undefined);
    }
    const spans = await recorder.spans();
    expect(spans).toHaveLength(5);
    expect(spans.every((span) => span.parentSpanId === undefined)).toBe(true);
  });
});
