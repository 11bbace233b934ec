import type { EndpointDto, TemplateDto } from '@runplane/contracts';
import type { GatewayHarness } from './harness';
import { type Caller, endpointRequests, startEndpointsWorld } from './endpoints-fixture';

// v1 endpoints carry Runplane's `type` extension (RunPod v2's EndpointType) on create, read and update.
describe('v1 /endpoints type', () => {
  let gw: GatewayHarness;
  let owner: Caller;
  let template: TemplateDto;
  const { ok, createEndpoint, rejected } = endpointRequests(() => ({ gw, owner }));

  beforeAll(async () => {
    ({ gw, owner, template } = await startEndpointsWorld('endpoint-type'));
  });
  afterAll(() => gw.close());

  it('creates, reads and changes the type (Runplane extension): QUEUE by default, LOAD_BALANCER on request', async () => {
    const queue = await createEndpoint({ templateId: template.id, name: 'queue' });
    expect(queue).toMatchObject({ type: 'QUEUE', version: 0 });
    const lb = await createEndpoint({ templateId: template.id, name: 'lb', type: 'LOAD_BALANCER' });
    expect(lb).toMatchObject({ type: 'LOAD_BALANCER', version: 0 });
    expect(await ok<EndpointDto>(owner, 'GET', `/v1/endpoints/${lb.id}`)).toMatchObject({ type: 'LOAD_BALANCER' });
    expect(await gw.db.endpoint.findUnique({ where: { id: lb.id }, select: { type: true } })).toEqual({
      type: 'LOAD_BALANCER',
    });
    // Another type changes what workers run: a new version; a PATCH without it keeps the type.
    const changed = await ok<EndpointDto>(owner, 'PATCH', `/v1/endpoints/${queue.id}`, { type: 'LOAD_BALANCER' });
    expect(changed).toMatchObject({ type: 'LOAD_BALANCER', version: 1 });
    const renamed = await ok<EndpointDto>(owner, 'PATCH', `/v1/endpoints/${queue.id}`, { name: 'renamed' });
    expect(renamed).toMatchObject({ type: 'LOAD_BALANCER', version: 1 });
    const same = await ok<EndpointDto>(owner, 'PATCH', `/v1/endpoints/${queue.id}`, { type: 'LOAD_BALANCER' });
    expect(same.version).toBe(1);
    expect(await rejected({ type: 'ROUND_ROBIN' }, `/v1/endpoints/${queue.id}`, 'PATCH')).toMatch(/^type: /);
  });
});
