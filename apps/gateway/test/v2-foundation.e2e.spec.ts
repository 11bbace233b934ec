import type { AddressInfo } from 'node:net';
import { answerOf, sendRaw, servedRoutes } from '@runplane/testing';
import { V2_ROUTES } from '../src/v2/openapi/routes';
import { bearer, type GatewayHarness, startGateway } from './harness';
import { problemOf, type V2Caller, v2Caller } from './v2-helpers';

describe('management API v2 conventions', () => {
  let gw: GatewayHarness;
  let owner: V2Caller;

  beforeAll(async () => {
    gw = await startGateway('v2-foundation');
    owner = await v2Caller(gw);
  });

  afterAll(async () => {
    await gw.close();
  });

  describe('problem+json on every error path', () => {
    it('answers errors raised before routing on /v2 paths as problem+json, and on /v1 paths in the v1 shape', async () => {
      const badUrl = await owner.call('GET', '/v2/pods/%E0%A4%A');
      expect(problemOf(badUrl, 400)).toEqual({
        title: 'Bad Request',
        status: 400,
        detail: 'Request URL is not validly percent-encoded',
      });
      await gw.app.listen(0, '127.0.0.1');
      const { port } = gw.app.getHttpServer().address() as AddressInfo;
      const big = (path: string) => `GET ${path} HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(17 * 1024)}\r\n\r\n`;
      const v2 = await answerOf(sendRaw(port, big('/v2/templates')));
      expect(v2.status).toBe(431);
      expect(v2.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(v2.body).toEqual({
        title: 'Request Header Fields Too Large',
        status: 431,
        detail: 'Request line and headers are larger than 16 KB',
        requestId: v2.headers['x-request-id'],
      });
      const v1 = await answerOf(sendRaw(port, big('/v1/pods')));
      expect({ status: v1.status, body: v1.body }).toEqual({
        status: 431,
        body: expect.objectContaining({ message: 'Request line and headers are larger than 16 KB' }),
      });
    });

    it('answers a missing or unknown key 401 and a read-only key that writes 403', async () => {
      const missing = await gw.inject({ method: 'GET', url: '/v2/templates' });
      expect(problemOf(missing, 401)).toEqual({ title: 'Unauthorized', status: 401, detail: 'Missing API key' });
      const unknown = await gw.inject({ method: 'GET', url: '/v2/network-volumes', headers: bearer('rp_nope') });
      expect(problemOf(unknown, 401).detail).toBe('Invalid API key');
      const reader = await v2Caller(gw, 'READ_ONLY');
      expect((await reader.call('GET', '/v2/templates')).statusCode).toBe(200);
      const refused = await reader.call('PUT', '/v2/account/ssh-keys', { keys: [] });
      expect(problemOf(refused, 403)).toEqual({ title: 'Forbidden', status: 403, detail: 'This API key is read-only' });
    });

    it('answers unknown paths 404, a served path with another method 405 with Allow', async () => {
      expect(problemOf(await owner.call('GET', '/v2/nothing/here'), 404).detail).toBe(
        'No v2 route GET /v2/nothing/here',
      );
      expect(problemOf(await gw.inject({ method: 'POST', url: '/v2' }), 404).title).toBe('Not Found');
      const wrong = await owner.call('PUT', '/v2/templates');
      expect(problemOf(wrong, 405).title).toBe('Method Not Allowed');
      expect(wrong.headers.allow).toBe('GET, POST, HEAD');
      expect((await owner.call('POST', '/v2/templates/abc')).headers.allow).toBe('GET, PATCH, DELETE, HEAD');
      expect(problemOf(await owner.call('GET', '/v2/templates/not-a-template'), 404).detail).toBe('Template not found');
    });

    it('answers the families Runplane does not offer 501 on every method and sub-path', async () => {
      const cases: [string, string, RegExp][] = [
        ['GET', '/v2/clusters', /clusters/],
        ['POST', '/v2/clusters', /clusters/],
        ['GET', '/v2/clusters/c1', /clusters/],
        ['PATCH', '/v2/clusters/c1', /clusters/],
        ['DELETE', '/v2/clusters/c1', /clusters/],
        ['GET', '/v2/clusters/c1/pods', /clusters/],
        ['GET', '/v2/serverless/e1/builds', /serverless builds/],
        ['GET', '/v2/serverless/e1/builds/b1', /serverless builds/],
        ['POST', '/v2/serverless/e1/builds', /serverless builds/],
        ['GET', '/v2/registries/delegations', /ECR delegations/],
        ['POST', '/v2/registries/delegations', /ECR delegations/],
        ['DELETE', '/v2/registries/delegations/d1', /ECR delegations/],
      ];
      for (const [method, url, what] of cases) {
        const problem = problemOf(await owner.call(method as 'GET', url), 501);
        expect(problem.title).toBe('Not Implemented');
        expect(problem.detail).toMatch(/^Runplane does not offer /);
        expect(problem.detail).toMatch(what);
      }
    });

    it('answers a body that parses but fails validation 422 naming each field, unknown fields included', async () => {
      const unknown = await owner.call('POST', '/v2/templates', { name: 't', image: 'busybox', bogus: 1, other: 2 });
      expect(problemOf(unknown, 422)).toEqual({
        title: 'Unprocessable Entity',
        status: 422,
        detail: "Request validation failed: $: additional properties 'bogus', 'other' not allowed",
        errors: ["$: additional properties 'bogus', 'other' not allowed"],
      });
      const empty = problemOf(await owner.call('POST', '/v2/templates', {}), 422);
      expect(empty.errors).toEqual(["$: missing property 'name'", "$: missing property 'image'"]);
      const nested = problemOf(
        await owner.call('POST', '/v2/templates', { name: 't', image: 'i', mounts: { persistent: { size: 5 } } }),
        422,
      );
      expect(nested.errors).toEqual([
        '$.mounts.persistent.size: Too small: expected number to be >=10',
        "$.mounts.persistent: missing property 'path'",
      ]);
      expect(problemOf(await owner.call('POST', '/v2/templates', [1]), 422).errors).toEqual([
        '$: Invalid input: expected object, received array',
      ]);
    });

    it('answers malformed JSON 400 and a bad query 422', async () => {
      const malformed = await gw.inject({
        method: 'POST',
        url: '/v2/templates',
        headers: { ...bearer(owner.secret), 'content-type': 'application/json' },
        payload: '{"name":',
      });
      expect(problemOf(malformed, 400).detail).toBe('Request body is not valid JSON');
      expect(problemOf(await owner.call('GET', '/v2/templates?limit=0'), 422).errors).toEqual(['limit: must be >= 1']);
      expect(problemOf(await owner.call('GET', '/v2/templates?limit=1001'), 422).errors).toEqual([
        'limit: must be <= 1000',
      ]);
      expect(problemOf(await owner.call('GET', '/v2/templates?limit=x'), 422).errors).toEqual([
        'limit: expected a number',
      ]);
      const garbage = problemOf(await owner.call('GET', '/v2/templates?cursor=%25%25'), 422);
      expect(garbage.errors?.[0]).toMatch(/^cursor: not a cursor of this list/);
      // Unknown query parameters are ignored, as RunPod does.
      expect((await owner.call('GET', '/v2/templates?bogus=1')).statusCode).toBe(200);
    });
  });

  it('echoes x-request-id and sends RateLimit headers on answers to authenticated requests, errors included', async () => {
    const ok = await gw.inject({
      method: 'GET',
      url: '/v2/templates',
      headers: { ...bearer(owner.secret), 'x-request-id': 'req-v2-1' },
    });
    expect(ok.headers['x-request-id']).toBe('req-v2-1');
    expect(ok.headers['ratelimit-policy']).toBe('"minute";q=600;w=60, "hour";q=30000;w=3600, "day";q=500000;w=86400');
    expect(ok.headers.ratelimit).toMatch(/^"minute";r=\d+;t=\d+, "hour";r=\d+;t=\d+, "day";r=\d+;t=\d+$/);
    const missing = await owner.call('GET', '/v2/templates/none');
    expect(missing.headers.ratelimit).toMatch(/^"minute";r=\d+;t=\d+/);
    expect(missing.headers['x-request-id']).toEqual(expect.any(String));
    const unauthenticated = await gw.inject({ method: 'GET', url: '/v2/templates' });
    expect(unauthenticated.headers['x-request-id']).toEqual(expect.any(String));
    expect(unauthenticated.headers.ratelimit).toBeUndefined();
  });

  it('documents every v2 route it serves in /v2/openapi.json, and serves every route documented', () => {
    const all = servedRoutes(gw.app.getHttpAdapter().getInstance().printRoutes()).filter((route) =>
      /^\S+ \/v2(\/|$)/.test(route),
    );
    // Paths answered on every method (404, 405 and the 501s of what Runplane does not offer) are not operations.
    const everyMethod = new Set(all.filter((route) => route.startsWith('LOCK ')).map((route) => route.slice(5)));
    const served = all
      .filter((route) => !everyMethod.has(route.split(' ')[1]!))
      .map((route) => route.replace(/:[^/]+/g, '{}'));
    const documented = V2_ROUTES.map((route) => `${route.method} ${route.path.replace(/\{[^}]+\}/g, '{}')}`);
    expect([...new Set(served)].sort()).toEqual([...documented].sort());
  });

  it('refuses every v2 route that changes state to a read-only key (403), and lets it read', async () => {
    const reader = await v2Caller(gw, 'READ_ONLY');
    for (const route of V2_ROUTES.filter((r) => !r.public)) {
      const url = route.path.replace(/\{[^}]+\}/g, 'sweep-id');
      const res = await reader.call(route.method, url, route.method === 'GET' ? undefined : {});
      if (route.method === 'GET') expect([route.path, res.statusCode]).not.toEqual([route.path, 403]);
      else expect([route.path, problemOf(res, 403).detail]).toEqual([route.path, 'This API key is read-only']);
    }
  });

  it('serves /v2/openapi.json without a key, with every route and problem+json errors', async () => {
    const res = await gw.inject({ method: 'GET', url: '/v2/openapi.json' });
    expect(res.statusCode).toBe(200);
    const document = res.json<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }>();
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/v2/templates',
        '/v2/templates/{id}',
        '/v2/network-volumes',
        '/v2/network-volumes/{id}',
        '/v2/registries',
        '/v2/registries/{id}',
        '/v2/account/ssh-keys',
      ]),
    );
    const create = document.paths['/v2/templates']!.post!;
    expect(Object.keys(create.responses)).toEqual(['201', '400', '401', '403', '422', '429', 'default']);
    expect(create.responses['422']).toMatchObject({ content: { 'application/problem+json': expect.any(Object) } });
    expect(Object.keys(document.paths['/v2/templates/{id}']!.delete!.responses)[0]).toBe('204');
  });
});

describe('management API v2 quotas', () => {
  it('answers 429 with Retry-After past an account quota, counting each account on its own', async () => {
    const gw = await startGateway('v2-quota', { env: { V2_RATE_LIMIT_PER_MINUTE: '3', V2_RATE_LIMIT_PER_DAY: '0' } });
    try {
      const [first, second] = [(await gw.accountWithKey()).secret, (await gw.accountWithKey()).secret];
      const get = (secret: string) => gw.inject({ method: 'GET', url: '/v2/templates', headers: bearer(secret) });
      const remaining: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        const res = await get(first);
        expect(res.statusCode).toBe(200);
        remaining.push(String(res.headers.ratelimit).split(',')[0]!.split(';')[1]!);
      }
      expect(remaining).toEqual(['r=2', 'r=1', 'r=0']);
      const refused = await get(first);
      expect(problemOf(refused, 429)).toEqual({
        title: 'Too Many Requests',
        status: 429,
        detail: 'rate limit exceeded for the minute window',
      });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(refused.headers['ratelimit-policy']).toBe('"minute";q=3;w=60, "hour";q=30000;w=3600');
      expect(refused.headers.ratelimit).toMatch(/^"minute";r=0;t=\d+, "hour";r=\d+;t=\d+$/);
      expect((await get(second)).statusCode).toBe(200);
    } finally {
      await gw.close();
    }
  });
});
