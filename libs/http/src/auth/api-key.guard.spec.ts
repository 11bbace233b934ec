import { Controller, Get, Module, Param, Post } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Principal } from '@runplane/contracts';
import { createLogger } from '@runplane/observability';
import { createHttpApp } from '../app/create-http-app';
import { API_KEY_AUTHENTICATOR, type ApiKeyAuthenticator, Authenticated, CurrentPrincipal, EndpointScoped, extractApiKey } from './api-key.guard';

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
  list(@CurrentPrincipal() principal: Principal): { key: string } {
    return { key: principal.apiKeyId };
  }
  @Get(':endpointId')
  @EndpointScoped()
  get(@Param('endpointId') id: string): { id: string } {
    return { id };
  }
  @Post(':endpointId/run')
  @EndpointScoped()
  run(@Param('endpointId') id: string): { id: string } {
    return { id };
  }
}

@Module({ controllers: [EndpointsController], providers: [{ provide: API_KEY_AUTHENTICATOR, useValue: authenticator }] })
class EndpointsModule {}

describe('ApiKeyGuard scopes', () => {
  let app: NestFastifyApplication;
  const call = (method: 'GET' | 'POST', url: string, key?: string) =>
    app.getHttpAdapter().getInstance().inject({ method, url, headers: key ? { authorization: `Bearer ${key}` } : {} });

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

  it('lets READ_ONLY keys read only', async () => {
    expect((await call('GET', '/endpoints/ep2', 'reader')).statusCode).toBe(200);
    const write = await call('POST', '/endpoints/ep2/run', 'reader');
    expect(write.statusCode).toBe(401);
    expect(write.json()).toMatchObject({ error: 'This API key is read-only' });
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
