import { seedCatalog } from '@runplane/catalog';
import type { EndpointDto, TemplateDto } from '@runplane/contracts';
import { type Caller, type GatewayHarness, type Method, requestsAs, startGateway } from './harness';

export type { Caller, Method } from './harness';

/** What the /v1/endpoints specs start from: two accounts, each with a template of its own. */
export interface EndpointsWorld {
  gw: GatewayHarness;
  owner: Caller;
  other: Caller;
  /** The owner's serverless template. */
  template: TemplateDto;
  /** The other account's private template. */
  otherTemplate: TemplateDto;
}

/** Starts a gateway on the catalog with the two accounts and their templates. */
export async function startEndpointsWorld(label: string): Promise<EndpointsWorld> {
  const gw = await startGateway(label);
  await seedCatalog(gw.db);
  const owner = await gw.accountWithKey('ALL');
  const other = await gw.accountWithKey('ALL');
  const { ok } = endpointRequests(() => ({ gw, owner }));
  const template = await ok<TemplateDto>(owner, 'POST', '/v1/templates', {
    name: 'worker',
    imageName: 'runplane/worker:1',
    isServerless: true,
    env: { MODEL: 'small' },
  });
  const otherTemplate = await ok<TemplateDto>(other, 'POST', '/v1/templates', {
    name: 'private',
    imageName: 'other/private:1',
  });
  return { gw, owner, other, template, otherTemplate };
}

/** Requests of the endpoints specs, on the gateway and owner that `world` returns when a test runs. */
export function endpointRequests(world: () => Pick<EndpointsWorld, 'gw' | 'owner'>) {
  const call = requestsAs(() => world().gw);
  async function ok<T>(caller: Caller, method: Method, url: string, payload?: object): Promise<T> {
    const res = await call(caller, method, url, payload);
    expect({ url, status: res.statusCode, body: res.statusCode === 200 ? null : res.body }).toEqual({
      url,
      status: 200,
      body: null,
    });
    return res.json() as T;
  }
  const createEndpoint = (payload: object, caller = world().owner) =>
    ok<EndpointDto>(caller, 'POST', '/v1/endpoints', payload);
  async function rejected(payload: object, url = '/v1/endpoints', method: Method = 'POST'): Promise<string> {
    const res = await call(world().owner, method, url, payload);
    expect(res.statusCode).toBe(400);
    return (res.json() as { message: string }).message;
  }
  const volume = async (caller: Caller, dataCenterId: string): Promise<string> =>
    (
      await ok<{ id: string }>(caller, 'POST', '/v1/networkvolumes', {
        name: `vol-${dataCenterId}`,
        size: 10,
        dataCenterId,
      })
    ).id;
  return { call, ok, createEndpoint, rejected, volume };
}
