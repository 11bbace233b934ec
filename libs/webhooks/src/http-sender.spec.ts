import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { excerptOf, RESPONSE_EXCERPT_BYTES, UndiciWebhookSender } from './http-sender';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A local receiver whose answer each test sets; it records what arrived. */
async function startReceiver(): Promise<{
  port: number;
  server: Server;
  handle: (h: Handler) => void;
  seen: { url: string; headers: IncomingMessage['headers']; body: string }[];
}> {
  let handler: Handler = (_req, res) => res.end('ok');
  const seen: { url: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, server, handle: (h) => (handler = h), seen };
}

describe('excerptOf', () => {
  it('keeps at most 512 bytes, never splitting a character, and drops NULs', () => {
    expect(excerptOf(Buffer.from('a'.repeat(600)))).toHaveLength(RESPONSE_EXCERPT_BYTES);
    const text = excerptOf(Buffer.from(`${'a'.repeat(511)}é`));
    expect(text).toBe('a'.repeat(511));
    expect(excerptOf(Buffer.from('ok\u0000!'))).toBe('ok!');
    expect(Buffer.byteLength(excerptOf(Buffer.from([0xff, 0xfe].concat(Array(600).fill(0x61)))))).toBeLessThanOrEqual(
      512,
    );
  });
});

describe('UndiciWebhookSender', () => {
  const sender = new UndiciWebhookSender();
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    receiver.server.closeAllConnections();
    await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
  });
  beforeEach(() => {
    receiver.seen.length = 0;
  });

  const at = (path: string, host = '127.0.0.1') => ({
    url: new URL(`http://${host}:${receiver.port}${path}`),
    address: '127.0.0.1',
    family: 4 as const,
  });

  it('POSTs the body as JSON with the given headers to the pinned address, keeping the URL host in Host', async () => {
    receiver.handle((_req, res) => res.writeHead(204).end());
    // The host name resolves nowhere: the request can only arrive through the pinned address.
    const outcome = await sender.send({
      destination: at('/hook?x=1', 'hooks.invalid'),
      body: '{"id":"job-1"}',
      headers: { 'webhook-id': 'msg_1' },
      timeoutMs: 5_000,
    });
    expect(outcome).toMatchObject({ kind: 'response', statusCode: 204, excerpt: '' });
    expect(receiver.seen).toHaveLength(1);
    expect(receiver.seen[0]).toMatchObject({ url: '/hook?x=1', body: '{"id":"job-1"}' });
    expect(receiver.seen[0]!.headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': 'msg_1',
      host: `hooks.invalid:${receiver.port}`,
    });
  });

  it('sends URL credentials as basic auth, not in the request line', async () => {
    receiver.handle((_req, res) => res.end());
    const destination = { ...at('/auth'), url: new URL(`http://user:p%40ss@127.0.0.1:${receiver.port}/auth`) };
    await sender.send({ destination, body: '{}', headers: {}, timeoutMs: 5_000 });
    expect(receiver.seen[0]!.headers.authorization).toBe(`Basic ${Buffer.from('user:p@ss').toString('base64')}`);
  });

  it('does not follow redirects: a 3xx is the answer', async () => {
    receiver.handle((req, res) =>
      req.url === '/moved' ? res.writeHead(302, { location: '/elsewhere' }).end('go away') : res.end('target'),
    );
    const outcome = await sender.send({ destination: at('/moved'), body: '{}', headers: {}, timeoutMs: 5_000 });
    expect(outcome).toMatchObject({ kind: 'response', statusCode: 302, excerpt: 'go away' });
    expect(receiver.seen.map((s) => s.url)).toEqual(['/moved']);
  });

  it('keeps only a 512-byte excerpt of a large response body', async () => {
    receiver.handle((_req, res) => res.writeHead(500).end('x'.repeat(1_000_000)));
    const outcome = await sender.send({ destination: at('/big'), body: '{}', headers: {}, timeoutMs: 5_000 });
    expect(outcome).toMatchObject({ kind: 'response', statusCode: 500 });
    expect(outcome.kind === 'response' && outcome.excerpt).toBe('x'.repeat(512));
  });

  it('reports a receiver that does not answer in time as a timeout', async () => {
    receiver.handle(() => undefined);
    const outcome = await sender.send({ destination: at('/slow'), body: '{}', headers: {}, timeoutMs: 300 });
    expect(outcome).toMatchObject({ kind: 'error', error: 'timed out after 300 ms' });
    expect(outcome.kind === 'error' && outcome.durationMs).toBeGreaterThanOrEqual(250);
  });

  it('reports a refused connection as an error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const destination = { url: new URL(`http://127.0.0.1:${port}/`), address: '127.0.0.1', family: 4 as const };
    const outcome = await sender.send({ destination, body: '{}', headers: {}, timeoutMs: 5_000 });
    expect(outcome).toMatchObject({ kind: 'error', error: expect.stringMatching(/ECONNREFUSED/) });
  });
});
