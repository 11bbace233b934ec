import { MAX_JSON_DEPTH } from '@runplane/http';
import { fuzzRoutes, nestedJson, type OpenApiDocument, servedRoutes } from '@runplane/testing';
import { bearer, type GatewayHarness, startGateway } from './harness';

describe('v1: request edges', () => {
  let gw: GatewayHarness;
  let secret: string;

  beforeAll(async () => {
    gw = await startGateway('edges');
    ({ secret } = await gw.accountWithKey('ALL'));
  });
  afterAll(() => gw.close());

  it('answers a body nested 10,000 deep with 400 in the v1 shape on every route that takes a body', async () => {
    const document = (await gw.inject({ method: 'GET', url: '/v1/openapi.json' })).json<OpenApiDocument>();
    const bodyRoutes = fuzzRoutes(servedRoutes(gw.app.getHttpAdapter().getInstance().printRoutes()), document).filter(
      (route) => route.body.length > 0,
    );
    expect(bodyRoutes.length).toBeGreaterThan(5);
    for (const route of bodyRoutes) {
      const url = route.path.replace(/:[A-Za-z0-9_]+/g, 'x1');
      const field = route.body[0] as string;
      const res = await gw.inject({
        method: route.method as 'POST',
        url,
        headers: { ...bearer(secret), 'content-type': 'application/json' },
        payload: `{"${field}":${nestedJson(10_000)}}`,
      });
      expect({ route: `${route.method} ${route.path}`, status: res.statusCode, body: res.json() }).toEqual({
        route: `${route.method} ${route.path}`,
        status: 400,
        body: {
          message: `body: nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`,
          code: 'VALIDATION_FAILED',
          requestId: res.headers['x-request-id'],
        },
      });
    }
  });

  it('answers bad percent-encoding and a path id over 100 characters in the v1 shape with the request id', async () => {
    const badUrl = await gw.inject({ method: 'GET', url: '/v1/pods/%E0%A4%A', headers: bearer(secret) });
    expect(badUrl.statusCode).toBe(400);
    expect(badUrl.json()).toEqual({
      message: 'Request URL is not validly percent-encoded',
      code: 'VALIDATION_FAILED',
      requestId: badUrl.headers['x-request-id'],
    });
    const longId = await gw.inject({ method: 'GET', url: `/v1/pods/${'p'.repeat(101)}`, headers: bearer(secret) });
    expect(longId.statusCode).toBe(404);
    expect(longId.json()).toEqual({
      message: 'Not found',
      code: 'NOT_FOUND',
      requestId: longId.headers['x-request-id'],
    });
  });
});
