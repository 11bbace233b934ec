import { fuzzRoutes, type FuzzRoute, type OpenApiDocument, servedRoutes } from '@runplane/testing';
import { request } from 'undici';
import { bearer, type GatewayHarness, startGateway } from './harness';

/** A gateway listening on a loopback port, for fuzz runs over a real socket, with a key of scope ALL. */
export interface FuzzGateway {
  gw: GatewayHarness;
  origin: string;
  secret: string;
}

/** Starts a {@link FuzzGateway} for one test file; `env` goes over the harness's own. */
export async function startFuzzGateway(label: string, env?: Record<string, string>): Promise<FuzzGateway> {
  const gw = await startGateway(label, { env });
  const { secret } = await gw.accountWithKey('ALL');
  await gw.app.listen({ port: 0, host: '127.0.0.1' });
  const address = gw.app.getHttpServer().address();
  return { gw, secret, origin: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
}

/** The gateway's own OpenAPI document (at `documentUrl`) and the served routes that `keep` picks, to fuzz. */
export async function fuzzTargets(
  gw: GatewayHarness,
  documentUrl: string,
  keep: (route: string) => boolean,
): Promise<{ document: OpenApiDocument; served: string[]; routes: FuzzRoute[] }> {
  const document = (await gw.inject({ method: 'GET', url: documentUrl })).json<OpenApiDocument>();
  const served = servedRoutes(gw.app.getHttpAdapter().getInstance().printRoutes()).filter(keep);
  return { document, served, routes: fuzzRoutes(served, document) };
}

/** POSTs a JSON body as the fuzz key's account; answers the created resource's id. */
export function creatorFor({ gw, secret }: FuzzGateway): (url: string, payload: object) => Promise<string> {
  const headers = { ...bearer(secret), 'content-type': 'application/json' };
  return async (url, payload) => (await gw.inject({ method: 'POST', url, headers, payload })).json<{ id: string }>().id;
}

/** After a run: each of `probes` answers 200 over the socket, and so does an authenticated GET of `url`. */
export async function expectStillServing(fuzz: FuzzGateway, probes: string[], url: string): Promise<void> {
  for (const probe of probes) {
    const answer = await request(`${fuzz.origin}${probe}`);
    expect(answer.statusCode).toBe(200);
    await answer.body.dump();
  }
  expect((await fuzz.gw.inject({ method: 'GET', url, headers: bearer(fuzz.secret) })).statusCode).toBe(200);
}
