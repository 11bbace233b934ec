import { Controller, Get, Module, Param, Post } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Principal } from '@runplane/contracts';
import { createLogger } from '@runplane/observability';
import { createHttpApp } from '../app/create-http-app';
import {
  API_KEY_AUTHENTICATOR,
  type ApiKeyAuthenticator,
  Authenticated,
  CurrentPrincipal,
  EndpointScoped,
  extractApiKey,
  Reads,
  ReadsSecret,
  Writes,
} from './api-key.guard';

const PRINCIPALS: Record<string, Principal> = {
  all: { accountId: 'acc', apiKeyId: 'k1', scope: 'ALL', allowedEndpointIds: [] },
  reader: { accountId: 'acc', apiKeyId: 'k2', scope: 'READ_ONLY', allowedEndpointIds: [] },
  narrow: { accountId: 'acc', apiKeyId: 'k3', scope: 'RESTRICTED', allowedEndpointIds: ['ep1'] },
};

/** Keys are looked up in a table: the guard's scope rules are what is under test here. */
const authenticator: ApiKeyAuthenticator = { authenticate: async (secret) => PRINCIPALS[secret] ?? null };

@Controller('endpoints')
@Authenticated()
class EndpointsController {
  @Get()
  @Reads()
  list(@CurrentPrincipal() principal: Principal): { key: string } {
    return { key: principal.apiKeyId };
  }
  @Get(':endpointId')
  @Reads()
  @EndpointScoped()
  get(@Param('endpointId') id: string): { id: string } {
    return { id };
  }
  @Post(':endpointId/run')
  @Writes()
  @EndpointScoped()
  run(@Param('endpointId') id: string): { id: string } {
    return { id };
  }
  /** A read sent as POST, as RunPod's clients send /status. */
  @Post(':endpointId/look')
  @Reads()
  @EndpointScoped()
  look(@Param('endpointId') id: string): { id: string } {
    return { id };
  }
  /** A write sent as GET. */
  @Get(':endpointId/touch')
  @Writes()
  @EndpointScoped()
  touch(@Param('endpointId') id: string): { id: string } {
    return { id };
  }
  @Get('secret')
  @ReadsSecret()
  secret(): { secret: string } {
    return { secret: 'whsec_x' };
  }
}

@Module({
  controllers: [EndpointsController],
  providers: [{ provide: API_KEY_AUTHENTICATOR, useValue: authenticator }],
})
class EndpointsModule {}

describe('ApiKeyGuard scopes', () => {
  let app: NestFastifyApplication;
  const call = (method: 'GET' | 'POST', url: string, key?: string) =>
    app
      .getHttpAdapter()
      .getInstance()
      .inject({ method, url, headers: key ? { authorization: `Bearer ${key}` } : {} });

  beforeAll(async () => {
    app = await createHttpApp({
      module: EndpointsModule,
      logger: createLogger({ serviceName: 'test', level: 'silent' }),
      errorStyle: 'job',
      bodyLimitBytes: 1024,
    });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(() => app.close());

  it('lets ALL keys anywhere and hands the principal to the handler', async () => {
    expect((await call('GET', '/endpoints', 'all')).json()).toEqual({ key: 'k1' });
    expect((await call('POST', '/endpoints/ep2/run', 'all')).statusCode).toBe(201);
  });

  it('lets READ_ONLY keys read only, by what a route does rather than its method', async () => {
    expect((await call('GET', '/endpoints/ep2', 'reader')).statusCode).toBe(200);
    expect((await call('POST', '/endpoints/ep2/look', 'reader')).statusCode).toBe(201);
    for (const [method, url] of [
      ['POST', '/endpoints/ep2/run'],
      ['GET', '/endpoints/ep2/touch'],
    ] as const) {
      const write = await call(method, url, 'reader');
      expect(write.statusCode).toBe(401);
      expect(write.json()).toMatchObject({ error: 'This API key is read-only', code: 'UNAUTHORIZED' });
    }
  });

  it('hands a secret only to keys that may write', async () => {
    expect((await call('GET', '/endpoints/secret', 'all')).json()).toEqual({ secret: 'whsec_x' });
    const refused = await call('GET', '/endpoints/secret', 'reader');
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ error: 'This API key is read-only; secrets need a key that may write' });
    expect((await call('GET', '/endpoints/secret', 'narrow')).statusCode).toBe(401);
  });

  it('lets RESTRICTED keys reach their own endpoints and nothing else', async () => {
    expect((await call('GET', '/endpoints/ep1', 'narrow')).statusCode).toBe(200);
    expect((await call('POST', '/endpoints/ep1/run', 'narrow')).statusCode).toBe(201);
    const other = await call('POST', '/endpoints/ep2/run', 'narrow');
    expect(other.statusCode).toBe(401);
    expect(other.json()).toMatchObject({ error: 'This API key is restricted to other endpoints' });
    expect((await call('GET', '/endpoints', 'narrow')).statusCode).toBe(401);
  });

  it('answers missing and unknown keys with 401', async () => {
    expect((await call('GET', '/endpoints')).json()).toMatchObject({ error: 'Missing API key', code: 'UNAUTHORIZED' });
    expect((await call('GET', '/endpoints', 'nope')).json()).toMatchObject({ error: 'Invalid API key' });
  });
});

describe('Authenticated', () => {
  it('refuses a controller with a route that does not declare what it does', () => {
    expect(() => {
      @Controller('things')
      @Authenticated()
      class ThingsController {
        @Get()
        @Reads()
        list(): string[] {
          return [];
        }
        @Post()
        create(): string {
          return 'made';
        }
      }
      return ThingsController;
    }).toThrow(
      'ThingsController.create: an authenticated route declares its access with @Reads(), @Writes() or @ReadsSecret()',
    );
  });
});

describe('extractApiKey', () => {
  it('accepts Bearer in any case and the raw key, and nothing for blanks', () => {
    expect(extractApiKey('Bearer abc')).toBe('abc');
    expect(extractApiKey('bearer   abc ')).toBe('abc');
    expect(extractApiKey('abc')).toBe('abc');
    expect(extractApiKey(['abc', 'def'])).toBe('abc');
    expect(extractApiKey(undefined)).toBeNull();
    expect(extractApiKey('Bearer ')).toBeNull();
    expect(extractApiKey('   ')).toBeNull();
  });
});
