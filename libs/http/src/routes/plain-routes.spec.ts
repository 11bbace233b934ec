import { Inject, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DomainError, UnauthorizedError } from '@runplane/contracts';
import { createLogger } from '@runplane/observability';
import type { FastifyRequest, InjectOptions } from 'fastify';
import { Writable } from 'node:stream';
import { z } from 'zod';
import { createHttpApp } from '../app/create-http-app';
import { noContent } from './reply-signals';
import { type Release, routeDeclarer, type RouteGuards } from './plain-routes';
import { PlainRoutes } from './plain-routes.service';

interface Policy {
  access: 'read' | 'write';
  limited?: boolean;
}
interface Caller {
  name: string;
}

/** A refusal over a limit, with the seconds after which a retry may pass. */
class TooMany extends DomainError {
  readonly retryAfterSeconds = 3;

  constructor() {
    super('RATE_LIMITED', 'Too many concurrent requests');
  }
}

/** What each step of the pipeline saw, in order. */
const steps: string[] = [];

/** A key per caller; a write needs `writer`; a limited route has one slot, held until the answer is ready. */
class TestGuards implements RouteGuards<Policy, Caller> {
  private held = false;

  async authenticate(request: FastifyRequest, policy: Policy): Promise<Caller> {
    const name = request.headers.authorization;
    if (typeof name !== 'string') throw new UnauthorizedError('Missing API key');
    if (policy.access === 'write' && name !== 'writer') throw new UnauthorizedError('This API key is read-only');
    steps.push(`authenticate ${name} ${policy.access}`);
    return { name };
  }

  async limit(caller: Caller, _request: unknown, policy: Policy): Promise<Release | undefined> {
    if (!policy.limited) return undefined;
    if (this.held) throw new TooMany();
    this.held = true;
    steps.push(`limit ${caller.name}`);
    return async () => {
      this.held = false;
      steps.push('release');
    };
  }
}

const route = routeDeclarer<Policy, Caller>();
const thing = z.strictObject({ name: z.string() });
/** Holds POST /things/:id in its handler while `held` is set; `entered` resolves once a request is in there. */
const gate = { held: Promise.resolve(), entered: (): void => undefined };

const routes = [
  route({
    method: 'POST',
    url: '/things/:id',
    policy: { access: 'write', limited: true },
    query: z.object({ size: z.coerce.number().int().min(1).default(1) }),
    body: thing,
    handle: async ({ caller, params, query, body }) => {
      steps.push('handle');
      gate.entered();
      await gate.held;
      return { by: caller.name, id: params.id, size: query.size, name: body.name };
    },
  }),
  route({
    method: 'GET',
    url: '/things/:id',
    policy: (request) => ({ access: (request.query as { touch?: string }).touch ? 'write' : 'read' }),
    handle: async ({ params, reply }) => (params.id === 'none' ? noContent(reply) : { id: params.id }),
  }),
];

@Injectable()
class TestRoutes implements OnModuleInit {
  constructor(@Inject(PlainRoutes) private readonly http: PlainRoutes) {}

  onModuleInit(): void {
    this.http.acceptJsonBodies((url) => ({ bytes: url === '/things/:id' ? 64 : 16, what: url || 'this route' }));
    this.http.serve({ guards: new TestGuards(), routes });
  }
}

@Module({ providers: [PlainRoutes, TestRoutes] })
class TestModule {}

describe('plain routes: one pipeline for every route', () => {
  let app: NestFastifyApplication;
  const inject = (options: InjectOptions) => app.getHttpAdapter().getInstance().inject(options);

  beforeAll(async () => {
    const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
    const logger = createLogger({ serviceName: 'test', level: 'info', destination: quiet });
    app = await createHttpApp({ module: TestModule, logger, errorStyle: 'job', bodyLimitBytes: 1024 });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(() => app.close());
  beforeEach(() => {
    steps.length = 0;
  });

  it('authenticates, counts, parses the query and the body, handles, then gives back what it held', async () => {
    const answer = await inject({
      method: 'POST',
      url: '/things/t1?size=3',
      headers: { authorization: 'writer', 'content-type': 'text/plain' },
      payload: JSON.stringify({ name: 'n' }),
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ by: 'writer', id: 't1', size: 3, name: 'n' });
    expect(steps).toEqual(['authenticate writer write', 'limit writer', 'handle', 'release']);
  });

  it('answers every refusal in the API error shape: auth before limits, limits before validation', async () => {
    const unauthorized = await inject({ method: 'POST', url: '/things/t1', headers: { authorization: 'reader' } });
    expect(unauthorized.statusCode).toBe(401);
    expect(unauthorized.json()).toMatchObject({ error: 'This API key is read-only', code: 'UNAUTHORIZED' });
    const invalid = await inject({
      method: 'POST',
      url: '/things/t1?size=0',
      headers: { authorization: 'writer' },
      payload: { name: 1 },
    });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject({ code: 'VALIDATION_FAILED', requestId: invalid.headers['x-request-id'] });
    // The slot was taken before the query failed to parse, and given back.
    expect(steps).toEqual(['authenticate writer write', 'limit writer', 'release']);
  });

  it('holds a limit until the answer is ready: a second request meanwhile is refused with its Retry-After', async () => {
    let open = (): void => undefined;
    gate.held = new Promise((resolve) => (open = resolve));
    const entered = new Promise<void>((resolve) => (gate.entered = resolve));
    const first = inject({
      method: 'POST',
      url: '/things/t1',
      headers: { authorization: 'writer' },
      payload: { name: 'a' },
    });
    await entered;
    const second = await inject({
      method: 'POST',
      url: '/things/t2',
      headers: { authorization: 'writer' },
      payload: { name: 'b' },
    });
    expect(second.statusCode).toBe(429);
    expect(second.headers['retry-after']).toBe('3');
    open();
    expect((await first).statusCode).toBe(200);
    gate.held = Promise.resolve();
  });

  it('decides the policy per request when the route says so, and lets a handler answer itself', async () => {
    const read = await inject({ method: 'GET', url: '/things/t9', headers: { authorization: 'reader' } });
    expect(read.json()).toEqual({ id: 't9' });
    const write = await inject({ method: 'GET', url: '/things/t9?touch=1', headers: { authorization: 'reader' } });
    expect(write.statusCode).toBe(401);
    const empty = await inject({ method: 'GET', url: '/things/none', headers: { authorization: 'reader' } });
    expect(empty.statusCode).toBe(204);
    expect(empty.body).toBe('');
  });

  it("takes any Content-Type as JSON, an empty body as none, and refuses a body over its route's limit with 400", async () => {
    const tooLarge = await inject({
      method: 'POST',
      url: '/things/t1',
      headers: { authorization: 'writer' },
      payload: { name: 'x'.repeat(100) },
    });
    expect(tooLarge.statusCode).toBe(400);
    expect(tooLarge.json()).toMatchObject({ error: 'body: too large, the limit of /things/:id is 64 bytes' });
    const empty = await inject({
      method: 'POST',
      url: '/things/t1',
      headers: { authorization: 'writer', 'content-type': 'application/json' },
    });
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toMatchObject({ error: 'name: Invalid input: expected string, received undefined' });
  });
});
