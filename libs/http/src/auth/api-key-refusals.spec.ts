import {
  type CanActivate,
  Controller,
  Get,
  Inject,
  Injectable,
  Module,
  type OnModuleInit,
  Post,
  Body,
} from '@nestjs/common';
import { APP_GUARD, HttpAdapterHost } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Principal } from '@runplane/contracts';
import { createLogger } from '@runplane/observability';
import type { FastifyInstance } from 'fastify';
import { createHttpApp } from '../app/create-http-app';
import { sendError } from '../errors/api-exception.filter';
import { refuseKeysEarly } from './api-key-refusals';
import {
  API_KEY_AUTHENTICATOR,
  type ApiKeyAuthenticator,
  Authenticated,
  CurrentPrincipal,
  Reads,
  Writes,
} from './api-key.guard';

const PRINCIPALS: Record<string, Principal> = {
  all: { accountId: 'acc', apiKeyId: 'k1', scope: 'ALL', allowedEndpointIds: [] },
  reader: { accountId: 'acc', apiKeyId: 'k2', scope: 'READ_ONLY', allowedEndpointIds: [] },
};

/** Counts lookups by secret; `broken` fails as a database outage would. */
class TableAuthenticator implements ApiKeyAuthenticator {
  readonly lookups: string[] = [];
  async authenticate(secret: string): Promise<Principal | null> {
    this.lookups.push(secret);
    if (secret === 'broken') throw new Error('database unreachable');
    return PRINCIPALS[secret] ?? null;
  }
}

/** Counts the requests that reach Nest's router: a global guard runs there before any controller's guard. */
@Injectable()
class ReachedNest implements CanActivate {
  static count = 0;
  canActivate(): boolean {
    ReachedNest.count += 1;
    return true;
  }
}

@Controller('things')
@Authenticated()
class ThingsController {
  @Get()
  @Reads()
  list(@CurrentPrincipal() principal: Principal): { key: string } {
    return { key: principal.apiKeyId };
  }
  @Post()
  @Writes()
  create(@Body() body: unknown): unknown {
    return body;
  }
}

@Controller('open')
class OpenController {
  @Get()
  open(): { open: true } {
    return { open: true };
  }
}

@Injectable()
class EarlyRefusals implements OnModuleInit {
  constructor(
    private readonly host: HttpAdapterHost,
    @Inject(API_KEY_AUTHENTICATOR) private readonly authenticator: ApiKeyAuthenticator,
  ) {}
  onModuleInit(): void {
    refuseKeysEarly(this.host.httpAdapter.getInstance<FastifyInstance>(), this.authenticator, (error, target) =>
      sendError({ style: 'v1', logger: target.request.log }, error, target),
    );
  }
}

const authenticator = new TableAuthenticator();

@Module({
  controllers: [ThingsController, OpenController],
  providers: [
    { provide: API_KEY_AUTHENTICATOR, useValue: authenticator },
    { provide: APP_GUARD, useClass: ReachedNest },
    EarlyRefusals,
  ],
})
class ThingsModule {}

/**
 * With refuseKeysEarly installed, a missing, unknown or disabled key is answered in a Fastify hook, before Nest's
 * router (no guard runs), in the API's error shape; a known key is looked up once per request, and its scope
 * is still applied by ApiKeyGuard.
 */
describe('refuseKeysEarly', () => {
  let app: NestFastifyApplication;
  const call = (method: 'GET' | 'POST', url: string, key?: string, payload?: string) =>
    app
      .getHttpAdapter()
      .getInstance()
      .inject({
        method,
        url,
        payload,
        headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), 'content-type': 'application/json' },
      });

  beforeAll(async () => {
    app = await createHttpApp({
      module: ThingsModule,
      logger: createLogger({ serviceName: 'test', level: 'silent' }),
      errorStyle: 'v1',
      bodyLimitBytes: 1024,
    });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(() => app.close());
  beforeEach(() => {
    ReachedNest.count = 0;
    authenticator.lookups.length = 0;
  });

  it('answers a missing or unknown key before Nest, in the API error shape', async () => {
    const missing = await call('GET', '/things');
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toEqual({
      message: 'Missing API key',
      code: 'UNAUTHORIZED',
      requestId: missing.headers['x-request-id'],
    });
    const unknown = await call('GET', '/things', 'nope');
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json()).toMatchObject({ message: 'Invalid API key', code: 'UNAUTHORIZED' });
    expect(ReachedNest.count).toBe(0);
  });

  it('lets a known key through with its principal, looked up once', async () => {
    const answer = await call('GET', '/things', 'all');
    expect(answer.json()).toEqual({ key: 'k1' });
    expect(authenticator.lookups).toEqual(['all']);
    expect(ReachedNest.count).toBe(1);
  });

  it("still applies the route's scope in the guard", async () => {
    const refused = await call('POST', '/things', 'reader', '{}');
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ message: 'This API key is read-only' });
    expect(authenticator.lookups).toEqual(['reader']);
  });

  it('answers a malformed body before the key, as before', async () => {
    const answer = await call('POST', '/things', 'nope', '{');
    expect(answer.statusCode).toBe(400);
    expect(authenticator.lookups).toEqual([]);
  });

  it('answers a failed lookup as a 500 that reveals only an error id', async () => {
    const answer = await call('GET', '/things', 'broken');
    expect(answer.statusCode).toBe(500);
    expect(answer.json().message).toMatch(/^Internal server error \(error id [0-9a-f-]{36}\)$/);
    expect(ReachedNest.count).toBe(0);
  });

  it('leaves routes without @Authenticated alone', async () => {
    expect((await call('GET', '/open', 'nope')).json()).toEqual({ open: true });
    expect(authenticator.lookups).toEqual([]);
  });
});
