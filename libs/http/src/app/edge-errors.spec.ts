import { Body, Controller, Get, Module, Param, Post } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createLogger } from '@runplane/observability';
import { answerOf, nestedJson, sendRaw, trickleUntilAnswered } from '@runplane/testing';
import type { FastifyInstance, InjectOptions } from 'fastify';
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
  const app = await createHttpApp({
    module: ThingsModule,
    logger,
    errorStyle: style,
    bodyLimitBytes: 4 * 1024 * 1024,
    bodyTimeoutMs,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.getHttpAdapter().getInstance().server.address();
  return { app, port: typeof address === 'object' && address ? address.port : 0 };
}

describe.each<[ErrorStyle, string]>([
  ['v1', 'message'],
  ['job', 'error'],
])('errors at and before routing, %s shape', (style, field) => {
  let ctx: Started;
  beforeAll(async () => {
    ctx = await start(style);
  });
  afterAll(() => ctx.app.close());

  const inject = (options: InjectOptions) =>
    (ctx.app.getHttpAdapter().getInstance() as FastifyInstance).inject(options);
  const json = { 'content-type': 'application/json' };

  it('refuses a body nested deeper than the limit with 400, and takes one at the limit', async () => {
    for (const depth of [MAX_JSON_DEPTH + 1, 10_000, 1_000_000]) {
      const res = await inject({
        method: 'POST',
        url: '/things',
        headers: json,
        payload: `{"a":${nestedJson(depth - 1)}}`,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        [field]: `body: nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`,
        code: 'VALIDATION_FAILED',
        requestId: res.headers['x-request-id'],
      });
    }
    const atLimit = await inject({
      method: 'POST',
      url: '/things',
      headers: json,
      payload: `{"a":${nestedJson(MAX_JSON_DEPTH - 1)}}`,
    });
    expect(atLimit.statusCode).toBe(201);
    // Brackets inside strings are text, not nesting.
    const inString = await inject({
      method: 'POST',
      url: '/things',
      headers: json,
      payload: JSON.stringify({ a: `\\"${'['.repeat(10_000)}` }),
    });
    expect(inString.statusCode).toBe(201);
  });

  it('answers a URL that is not valid percent-encoding with 400 and a request id', async () => {
    const res = await inject({ method: 'GET', url: '/things/%E0%A4%A', headers: { 'x-request-id': 'bad-url-1' } });
    expect(res.statusCode).toBe(400);
    expect(res.headers['x-request-id']).toBe('bad-url-1');
    expect(res.json()).toEqual({
      [field]: 'Request URL is not validly percent-encoded',
      code: 'VALIDATION_FAILED',
      requestId: 'bad-url-1',
    });
  });

  it('answers a path id over 100 characters as any unknown id, 404 with a request id', async () => {
    const res = await inject({ method: 'GET', url: `/things/${'a'.repeat(101)}` });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ [field]: 'Not found', code: 'NOT_FOUND', requestId: res.headers['x-request-id'] });
    expect(res.headers['x-request-id']).toEqual(expect.any(String));
  });

  it('answers a request line over 16 KB with 431 and a request id, then closes the connection', async () => {
    const answer = await answerOf(
      sendRaw(ctx.port, `GET /things/${'a'.repeat(17 * 1024)} HTTP/1.1\r\nhost: x\r\n\r\n`),
    );
    expect(answer.status).toBe(431);
    expect(answer.body).toEqual({
      [field]: 'Request line and headers are larger than 16 KB',
      code: 'HEADERS_TOO_LARGE',
      requestId: answer.headers['x-request-id'],
    });
  });

  it('answers unparsable HTTP with 400 and a request id', async () => {
    const answer = await answerOf(sendRaw(ctx.port, 'GET /things/1 HTTP/1.1\r\nhost x\r\n\r\n'));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      [field]: 'Malformed HTTP request',
      code: 'VALIDATION_FAILED',
      requestId: expect.any(String),
    });
  });
});

describe('a body trickled slower than the body timeout', () => {
  it('is answered 408 with its request id and its connection closed long before the body could arrive', async () => {
    const ctx = await start('job', 300);
    const declared = 1024 * 1024;
    const head = `POST /things HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${declared}\r\nx-request-id: slow-1\r\n\r\n`;
    try {
      const { answer, sent } = await trickleUntilAnswered(sendRaw(ctx.port, head), '[');
      expect(sent).toBeLessThan(declared);
      expect(answer.status).toBe(408);
      expect(answer.headers['x-request-id']).toBe('slow-1');
      expect(answer.body).toEqual({
        error: 'Request not received in time',
        code: 'REQUEST_TIMEOUT',
        requestId: 'slow-1',
      });
    } finally {
      await ctx.app.close();
    }
  });
});
