import { Body, Controller, Get, Module, Param, Post } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createLogger } from '@runplane/observability';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { connect, type Socket } from 'node:net';
import type { ErrorStyle } from '../errors/error-body';
import { createHttpApp } from './create-http-app';
import { MAX_JSON_DEPTH } from './json-depth';

@Controller('things')
class ThingsController {
  @Post()
  create(@Body() body: unknown): { kind: string } {
    return { kind: typeof body };
  }
  @Get(':id')
  byId(@Param('id') id: string): { id: string } {
    return { id };
  }
}

@Module({ controllers: [ThingsController] })
class ThingsModule {}

interface Started {
  app: NestFastifyApplication;
  port: number;
}

async function start(style: ErrorStyle, bodyTimeoutMs?: number): Promise<Started> {
  const logger = createLogger({ serviceName: 'test', level: 'silent' });
  const app = await createHttpApp({ module: ThingsModule, logger, errorStyle: style, bodyLimitBytes: 4 * 1024 * 1024, bodyTimeoutMs });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.getHttpAdapter().getInstance().server.address();
  return { app, port: typeof address === 'object' && address ? address.port : 0 };
}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** Everything the server writes on a socket until it closes it, read as one HTTP answer. */
function answerOf(socket: Socket): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString();
      const [head = '', body = ''] = raw.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => line.split(': ', 2).map((part, i) => (i ? part : part.toLowerCase()))));
      try {
        resolve({ status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) as Record<string, unknown> });
      } catch {
        reject(new Error(`no JSON answer before the connection closed: ${JSON.stringify(raw.slice(0, 300))}`));
      }
    });
  });
}

function send(port: number, head: string): Socket {
  const socket = connect(port, '127.0.0.1');
  socket.write(head);
  return socket;
}

const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe.each<[ErrorStyle, string]>([
  ['v1', 'message'],
  ['job', 'error'],
])('errors at and before routing, %s shape', (style, field) => {
  let ctx: Started;
  beforeAll(async () => {
    ctx = await start(style);
  });
  afterAll(() => ctx.app.close());

  const inject = (options: InjectOptions) => (ctx.app.getHttpAdapter().getInstance() as FastifyInstance).inject(options);
  const json = { 'content-type': 'application/json' };

  it('refuses a body nested deeper than the limit with 400, and takes one at the limit', async () => {
    for (const depth of [MAX_JSON_DEPTH + 1, 10_000, 1_000_000]) {
      const res = await inject({ method: 'POST', url: '/things', headers: json, payload: `{"a":${nested(depth - 1)}}` });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        [field]: `body: nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`,
        code: 'VALIDATION_FAILED',
        requestId: res.headers['x-request-id'],
      });
    }
    const atLimit = await inject({ method: 'POST', url: '/things', headers: json, payload: `{"a":${nested(MAX_JSON_DEPTH - 1)}}` });
    expect(atLimit.statusCode).toBe(201);
    // Brackets inside strings are text, not nesting.
    const inString = await inject({ method: 'POST', url: '/things', headers: json, payload: JSON.stringify({ a: `\\"${'['.repeat(10_000)}` }) });
    expect(inString.statusCode).toBe(201);
  });

  it('answers a URL that is not valid percent-encoding with 400 and a request id', async () => {
    const res = await inject({ method: 'GET', url: '/things/%E0%A4%A', headers: { 'x-request-id': 'bad-url-1' } });
    expect(res.statusCode).toBe(400);
    expect(res.headers['x-request-id']).toBe('bad-url-1');
    expect(res.json()).toEqual({ [field]: 'Request URL is not validly percent-encoded', code: 'VALIDATION_FAILED', requestId: 'bad-url-1' });
  });

  it('answers a path id over 100 characters as any unknown id, 404 with a request id', async () => {
    const res = await inject({ method: 'GET', url: `/things/${'a'.repeat(101)}` });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ [field]: 'Not found', code: 'NOT_FOUND', requestId: res.headers['x-request-id'] });
    expect(res.headers['x-request-id']).toEqual(expect.any(String));
  });

  it('answers a request line over 16 KB with 431 and a request id, then closes the connection', async () => {
    const answer = await answerOf(send(ctx.port, `GET /things/${'a'.repeat(17 * 1024)} HTTP/1.1\r\nhost: x\r\n\r\n`));
    expect(answer.status).toBe(431);
    expect(answer.body).toEqual({ [field]: 'Request line and headers are larger than 16 KB', code: 'HEADERS_TOO_LARGE', requestId: answer.headers['x-request-id'] });
  });

  it('answers unparsable HTTP with 400 and a request id', async () => {
    const answer = await answerOf(send(ctx.port, 'GET /things/1 HTTP/1.1\r\nhost x\r\n\r\n'));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ [field]: 'Malformed HTTP request', code: 'VALIDATION_FAILED', requestId: expect.any(String) });
  });
});

describe('a body trickled slower than the body timeout', () => {
  it('is answered 408 with its request id and its connection closed long before the body could arrive', async () => {
    const ctx = await start('job', 300);
    const declared = 1024 * 1024;
    const head = `POST /things HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${declared}\r\nx-request-id: slow-1\r\n\r\n`;
    const socket = send(ctx.port, head);
    // One byte every 20 ms: the declared megabyte would take almost six hours to arrive.
    let sent = 0;
    const trickle = setInterval(() => {
      if (socket.writable) socket.write('[', () => (sent += 1));
    }, 20);
    try {
      const answer = await answerOf(socket);
      expect(sent).toBeLessThan(declared);
      expect(answer.status).toBe(408);
      expect(answer.headers['x-request-id']).toBe('slow-1');
      expect(answer.body).toEqual({ error: 'Request not received in time', code: 'REQUEST_TIMEOUT', requestId: 'slow-1' });
    } finally {
      clearInterval(trickle);
      socket.destroy();
      await ctx.app.close();
    }
  });
});
