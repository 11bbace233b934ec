import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { activeTraceIds, injectTraceContext, startTelemetry, withSpan, withTraceContext } from './index';

interface Received {
  url: string;
  bytes: number;
}

function startCollector(): Promise<{ server: Server; endpoint: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let bytes = 0;
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      received.push({ url: req.url ?? '', bytes });
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
  it('starts without an endpoint, propagates trace context, and shuts down cleanly', async () => {
    const telemetry = startTelemetry({ serviceName: 'gateway' });
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
    await telemetry.shutdown();
    await telemetry.shutdown();
    expect(activeTraceIds()).toBeUndefined();
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

  it('shares one SDK between callers and stops it with the last handle', async () => {
    const first = startTelemetry({ serviceName: 'a' });
    const second = startTelemetry({ serviceName: 'b' });
    await first.shutdown();
    const stillTraced = await withSpan('after-first', async () => activeTraceIds());
    expect(stillTraced).toBeDefined();
    await second.shutdown();
    expect(await withSpan('after-both', async () => activeTraceIds())).toBeUndefined();
  });
});
