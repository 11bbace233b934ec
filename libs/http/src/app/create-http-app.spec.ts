import { Body, Controller, Get, HttpCode, Module, Param, Post } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { NotFoundError, ValidationError } from '@runplane/contracts';
import { createLogger, createMetricsRegistry } from '@runplane/observability';
import { Writable } from 'node:stream';
import { Agent, request } from 'undici';
import { z } from 'zod';
import { ZodPipe } from '../validation/zod.pipe';
import type { ErrorStyle } from '../errors/error-body';
import { createHttpApp } from './create-http-app';

const thingInput = z.strictObject({ name: z.string(), size: z.number().int().min(1).max(10).optional() });

/** Holds GET /things/slow until released (an answer in flight during shutdown). */
const slow = { release: (): void => undefined, entered: (): void => undefined };

@Controller('things')
class ThingsController {
  @Get('slow')
  async slowOne(): Promise<{ done: boolean }> {
    await new Promise<void>((resolve) => {
      slow.release = resolve;
      slow.entered();
    });
    return { done: true };
  }
  @Post()
  create(@Body(new ZodPipe(thingInput)) input: z.infer<typeof thingInput>): { name: string } {
    return { name: input.name };
  }
  @Post(':id/stop')
  @HttpCode(200)
  stop(@Param('id') id: string): { id: string } {
    return { id };
  }
  @Get('missing')
  missing(): never {
    throw new NotFoundError('Thing');
  }
  @Get('invalid')
  invalid(): never {
    throw new ValidationError('size: too big');
  }
  @Get('by-id/:id')
  byId(@Param('id') id: string): { id: string } {
    return { id };
  }
  @Get('boom')
  boom(): never {
    throw new Error('database password is hunter2');
  }
}

@Module({ controllers: [ThingsController] })
class ThingsModule {}

function memoryLog(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const lines = () =>
    chunks
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { stream, lines };
}

async function start(style: ErrorStyle) {
  const log = memoryLog();
  const logger = createLogger({ serviceName: 'test', level: 'info', destination: log.stream });
  const app: NestFastifyApplication = await createHttpApp({
    module: ThingsModule,
    logger,
    errorStyle: style,
    bodyLimitBytes: 1024,
    metrics: createMetricsRegistry('test'),
  });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return { app, log, inject: app.getHttpAdapter().getInstance().inject.bind(app.getHttpAdapter().getInstance()) };
}

describe('createHttpApp error shapes (v1 style)', () => {
  let ctx: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    ctx = await start('v1');
  });
  afterAll(() => ctx.app.close());

  const json = { 'content-type': 'application/json' };

  it('answers malformed JSON with 400 and a message', async () => {
    const res = await ctx.inject({ method: 'POST', url: '/things', headers: json, payload: '{"name": ' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ message: 'Request body is not valid JSON', code: 'MALFORMED_JSON' });
  });

  it('takes an empty application/json body as no body: a route without one answers, one that needs it says so', async () => {
    // runpodctl sends this header on its bodiless POSTs and DELETEs, runpod-python on cancel and purge_queue.
    const stop = await ctx.inject({ method: 'POST', url: '/things/t1/stop', headers: json, payload: '' });
    expect(stop.statusCode).toBe(200);
    expect(stop.json()).toEqual({ id: 't1' });
    const create = await ctx.inject({ method: 'POST', url: '/things', headers: json, payload: '' });
    expect(create.statusCode).toBe(400);
    expect(create.json()).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.any(String) });
    const blank = await ctx.inject({ method: 'POST', url: '/things', headers: json, payload: '  ' });
    expect(blank.json()).toMatchObject({ message: 'Request body is not valid JSON', code: 'MALFORMED_JSON' });
  });

  it('names the field on a wrong type, an out-of-range value and an unknown field', async () => {
    const wrongType = await ctx.inject({ method: 'POST', url: '/things', headers: json, payload: { name: 5 } });
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.json().message).toMatch(/^name: /);
    const range = await ctx.inject({ method: 'POST', url: '/things', headers: json, payload: { name: 'a', size: 11 } });
    expect(range.statusCode).toBe(400);
    expect(range.json().message).toMatch(/^size: /);
    const unknown = await ctx.inject({
      method: 'POST',
      url: '/things',
      headers: json,
      payload: { name: 'a', colour: 1 },
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ message: 'Unknown field: colour', code: 'VALIDATION_FAILED' });
  });

  it('answers a body of the wrong kind or media type with a 4xx', async () => {
    const array = await ctx.inject({ method: 'POST', url: '/things', headers: json, payload: '[1,2]' });
    expect(array.statusCode).toBe(400);
    expect(array.json()).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('expected object'),
    });
    const proto = await ctx.inject({
      method: 'POST',
      url: '/things',
      headers: json,
      payload: '{"name":"a","__proto__":{"x":1}}',
    });
    expect(proto.statusCode).toBe(400);
    const text = await ctx.inject({
      method: 'POST',
      url: '/things',
      headers: { 'content-type': 'text/csv' },
      payload: 'a,b',
    });
    expect(text.statusCode).toBe(415);
    expect(text.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Unsupported Content-Type' });
  });

  it('answers NUL characters with 404 in a path id and 400 naming the field elsewhere', async () => {
    expect((await ctx.inject({ method: 'GET', url: '/things/by-id/x%01' })).json()).toEqual({ id: 'x\u0001' });
    const path = await ctx.inject({ method: 'GET', url: '/things/by-id/x%00' });
    expect(path.statusCode).toBe(404);
    expect(path.json()).toMatchObject({ message: 'Not found', code: 'NOT_FOUND' });
    const body = await ctx.inject({ method: 'POST', url: '/things', headers: json, payload: { name: 'a\u0000b' } });
    expect(body.statusCode).toBe(400);
    expect(body.json()).toMatchObject({ message: 'name: must not contain NUL characters' });
    const query = await ctx.inject({ method: 'POST', url: '/things?tag=%00', headers: json, payload: { name: 'a' } });
    expect(query.json()).toMatchObject({ message: 'tag: must not contain NUL characters' });
    const nested = { name: 'a', meta: { tags: ['x', 'y\u0000'] } };
    const deep = await ctx.inject({ method: 'POST', url: '/things', headers: json, payload: nested });
    expect(deep.json()).toMatchObject({ message: 'meta.tags[1]: must not contain NUL characters' });
    const key = await ctx.inject({
      method: 'POST',
      url: '/things',
      headers: json,
      payload: { name: 'a', 'k\u0000': 1 },
    });
    expect(key.json()).toMatchObject({ message: 'k\u0000: must not contain NUL characters' });
  });

  it('answers an oversized body with 413', async () => {
    const res = await ctx.inject({
      method: 'POST',
      url: '/things',
      headers: json,
      payload: { name: 'x'.repeat(2000) },
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ message: 'Request body is too large', code: 'PAYLOAD_TOO_LARGE' });
  });

  it('maps domain errors and unknown routes', async () => {
    const missing = await ctx.inject({ method: 'GET', url: '/things/missing' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ message: 'Thing not found', code: 'NOT_FOUND' });
    const invalid = await ctx.inject({ method: 'GET', url: '/things/invalid' });
    expect(invalid.statusCode).toBe(400);
    const route = await ctx.inject({ method: 'GET', url: '/nowhere' });
    expect(route.statusCode).toBe(404);
    expect(route.json()).toMatchObject({ message: 'Not found', code: 'NOT_FOUND' });
  });

  it('hides internals of a 500 and logs them with an error id', async () => {
    const res = await ctx.inject({ method: 'GET', url: '/things/boom' });
    expect(res.statusCode).toBe(500);
    const body = res.json() as { message: string; code: string };
    expect(body.code).toBe('INTERNAL');
    expect(res.body).not.toContain('hunter2');
    const errorId = /error id ([0-9a-f-]{36})/.exec(body.message)?.[1];
    expect(errorId).toBeDefined();
    const logged = ctx.log.lines().find((line) => line.errorId === errorId);
    expect(logged).toBeDefined();
  });

  it('echoes a caller request id and makes one when absent or unsafe', async () => {
    const given = await ctx.inject({ method: 'GET', url: '/things/missing', headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers['x-request-id']).toBe('abc-123');
    expect(given.json().requestId).toBe('abc-123');
    const made = await ctx.inject({ method: 'GET', url: '/things/missing', headers: { 'x-request-id': 'bad id!' } });
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const logged = ctx.log.lines().filter((line) => line.requestId === 'abc-123');
    expect(logged.length).toBeGreaterThan(0);
  });
});

describe('createHttpApp error shapes (job API style)', () => {
  it('writes {"error"} bodies', async () => {
    const ctx = await start('job');
    try {
      const res = await ctx.inject({ method: 'GET', url: '/things/missing' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: 'Thing not found', code: 'NOT_FOUND' });
      expect(res.json()).not.toHaveProperty('message');
      const bad = await ctx.inject({
        method: 'POST',
        url: '/things',
        headers: { 'content-type': 'application/json' },
        payload: '{',
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ error: 'Request body is not valid JSON' });
    } finally {
      await ctx.app.close();
    }
  });
});

describe('createHttpApp shutdown', () => {
  it('closes a kept-alive connection whose answer was still in flight when close began', async () => {
    const { app } = await start('v1');
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.getHttpAdapter().getInstance().server.address();
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    // A client that keeps its connections open for a minute, as the worker SDK and load balancers do.
    const client = new Agent({ keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 });
    try {
      const entered = new Promise<void>((resolve) => (slow.entered = resolve));
      const inFlight = request(`${base}/things/slow`, { dispatcher: client });
      await entered;
      const closing = app.close();
      const server = app.getHttpAdapter().getInstance().server;
      // The answer goes out only once the server has stopped listening, so its connection was busy when close began.
      while (server.listening) await new Promise((resolve) => setImmediate(resolve));
      slow.release();
      const answer = await inFlight;
      expect(answer.statusCode).toBe(200);
      expect(await answer.body.json()).toEqual({ done: true });
      // Without the idle sweep this waits for the client's keep-alive to lapse (a minute).
      await closing;
      expect(server.listening).toBe(false);
    } finally {
      await client.close();
    }
  });
});
