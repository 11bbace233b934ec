import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  activeTraceIds,
  activeTraceparent,
  injectTraceContext,
  recordSpans,
  spansRecorded,
  startServiceTelemetry,
  startTelemetry,
  withIncomingSpan,
  withSpan,
  withTraceContext,
} from './index';

const FOREIGN = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

interface Received {
  url: string;
  bytes: number;
  /** The body as latin1 text: OTLP protobuf keeps strings (service name, span names) as they are. */
  text: string;
}

function startCollector(): Promise<{ server: Server; endpoint: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      received.push({ url: req.url ?? '', bytes: body.length, text: body.toString('latin1') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, endpoint: `http://127.0.0.1:${port}`, received });
    });
  });
}

describe('startTelemetry', () => {
  it('without an endpoint makes no span, carries an incoming trace context on, and shuts down cleanly', async () => {
    const telemetry = startTelemetry({ serviceName: 'gateway' });
    expect(spansRecorded()).toBe(false);
    expect(await withSpan('producer', async () => activeTraceIds())).toBeUndefined();
    const carried = await withTraceContext({ traceparent: FOREIGN }, () =>
      withSpan('consumer', async () => injectTraceContext()),
    );
    expect(carried.traceparent).toBe(FOREIGN);
    const incoming = await withIncomingSpan({ traceparent: FOREIGN }, 'POST /run', async () => activeTraceparent());
    expect(incoming).toBe(FOREIGN);
    expect(await withIncomingSpan({}, 'POST /run', async () => activeTraceparent())).toBeUndefined();
    await telemetry.shutdown();
    await telemetry.shutdown();
    expect(activeTraceIds()).toBeUndefined();
  });

  it('makes spans without an endpoint while a recorder records them', async () => {
    const telemetry = startTelemetry({ serviceName: 'gateway' });
    const recorder = recordSpans();
    try {
      expect(spansRecorded()).toBe(true);
      const { carrier, traceId } = await withSpan('producer', async () => ({
        carrier: injectTraceContext(),
        traceId: activeTraceIds()?.traceId,
      }));
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(carrier.traceparent).toContain(traceId);
      const consumerTraceId = await withTraceContext(carrier, () =>
        withSpan('consumer', async () => activeTraceIds()?.traceId),
      );
      expect(consumerTraceId).toBe(traceId);
      expect((await recorder.spans()).map((span) => span.name)).toEqual(['producer', 'consumer']);
    } finally {
      await recorder.stop();
      await telemetry.shutdown();
    }
    expect(spansRecorded()).toBe(false);
  });

  it('exports spans over OTLP/HTTP when an endpoint is set, and can restart after shutdown', async () => {
    const collector = await startCollector();
    try {
      const telemetry = startTelemetry({ serviceName: 'scheduler', otlpEndpoint: `${collector.endpoint}/` });
      await withSpan('reconcile', async () => undefined);
      await telemetry.shutdown();
      expect(collector.received.some((r) => r.url === '/v1/traces' && r.bytes > 0)).toBe(true);
    } finally {
      await new Promise<void>((resolve) => collector.server.close(() => resolve()));
    }
  });

  it("names a service's traces by OTEL_SERVICE_NAME when set, else by the service", async () => {
    const collector = await startCollector();
    try {
      for (const [config, expected] of [
        [{ OTEL_SERVICE_NAME: 'scheduler-eu-west' }, 'scheduler-eu-west'],
        [{}, 'scheduler'],
      ] as const) {
        collector.received.length = 0;
        const telemetry = startServiceTelemetry('scheduler', {
          ...config,
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
        });
        await withSpan('reconcile', async () => undefined);
        await telemetry.shutdown();
        const exported = collector.received
          .filter((r) => r.url === '/v1/traces')
          .map((r) => r.text)
          .join('');
        expect({ expected, exported: exported.includes('reconcile') && exported.includes(expected) }).toEqual({
          expected,
          exported: true,
        });
        if (expected === 'scheduler') expect(exported).not.toContain('scheduler-eu-west');
      }
    } finally {
      await new Promise<void>((resolve) => collector.server.close(() => resolve()));
    }
  });

  it('shares one SDK between callers and stops it with the last handle', async () => {
    const collector = await startCollector();
    try {
      const first = startTelemetry({ serviceName: 'a', otlpEndpoint: collector.endpoint });
      const second = startTelemetry({ serviceName: 'b' });
      await first.shutdown();
      const stillTraced = await withSpan('after-first', async () => activeTraceIds());
      expect(stillTraced).toBeDefined();
      await second.shutdown();
      expect(await withSpan('after-both', async () => activeTraceIds())).toBeUndefined();
    } finally {
      await new Promise<void>((resolve) => collector.server.close(() => resolve()));
    }
  });
});
