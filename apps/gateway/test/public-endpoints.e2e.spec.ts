import type { PublicEndpointDto } from '@runplane/contracts';
import { newId } from '@runplane/db';
import { RESERVED_ENDPOINT_IDS } from '@runplane/endpoints';
import { bearer, type GatewayHarness, startGateway } from './harness';

describe('v1 public endpoints (Runplane extension)', () => {
  let gw: GatewayHarness;
  let owner: { accountId: string; secret: string };
  let other: { accountId: string; secret: string };
  let reader: { accountId: string; secret: string };

  beforeAll(async () => {
    gw = await startGateway('public-endpoints');
    owner = await gw.accountWithKey('ALL');
    other = await gw.accountWithKey('ALL');
    reader = await gw.accountWithKey('READ_ONLY');
  });
  afterAll(() => gw.close());

  async function endpointOf(
    accountId: string,
    type: 'QUEUE' | 'LOAD_BALANCER' = 'QUEUE',
    id = newId(),
  ): Promise<string> {
    const template = await gw.db.template.create({
      data: { id: newId(), accountId, name: `tpl-${newId()}`, imageName: 'runplane/echo:1', isServerless: true },
    });
    const data = { id, accountId, name: `ep-${newId()}`, templateId: template.id, type };
    return (await gw.db.endpoint.create({ data })).id;
  }

  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, secret: string, payload?: unknown) =>
    gw.inject({ method, url: `/v1/public-endpoints${url}`, headers: bearer(secret), payload: payload as object });

  it('publishes, reads, updates and unpublishes an endpoint; the name is free again after', async () => {
    const endpointId = await endpointOf(owner.accountId);
    const body = {
      name: 'echo-1.0',
      endpointId,
      description: 'Echoes its input',
      input: { type: 'object', properties: { prompt: { type: 'string' } } },
      output: { type: 'object' },
      pricePerRequest: 0.0025,
    };
    const created = await call('POST', '', owner.secret, body);
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ ...body, createdAt: expect.any(String) });

    expect((await call('GET', '', owner.secret)).json<PublicEndpointDto[]>().map((p) => p.name)).toEqual(['echo-1.0']);
    expect((await call('GET', '', other.secret)).json()).toEqual([]);
    expect((await call('GET', '/echo-1.0', other.secret)).statusCode).toBe(404);

    const updated = await call('PATCH', '/echo-1.0', owner.secret, { pricePerRequest: null, description: 'v2' });
    expect(updated.json()).toMatchObject({ name: 'echo-1.0', pricePerRequest: null, description: 'v2' });
    expect((await call('PATCH', '/echo-1.0', other.secret, { description: 'x' })).statusCode).toBe(404);

    expect((await call('DELETE', '/echo-1.0', other.secret)).statusCode).toBe(404);
    expect((await call('DELETE', '/echo-1.0', owner.secret)).statusCode).toBe(204);
    expect((await call('GET', '/echo-1.0', owner.secret)).statusCode).toBe(404);

    const otherEndpoint = await endpointOf(other.accountId);
    const reused = await call('POST', '', other.secret, { name: 'echo-1.0', endpointId: otherEndpoint });
    expect(reused.statusCode).toBe(201);
    expect(reused.json()).toMatchObject({ description: '', input: {}, output: {}, pricePerRequest: null });
  });

  it('refuses names that collide with endpoint ids or reserved segments, and malformed names, with 4xx messages', async () => {
    const endpointId = await endpointOf(owner.accountId);
    const someonesEndpoint = await endpointOf(other.accountId, 'QUEUE', `ep${newId().toLowerCase()}`);
    const publish = (name: unknown) => call('POST', '', owner.secret, { name, endpointId });

    const asEndpointId = await publish(someonesEndpoint);
    expect(asEndpointId.statusCode).toBe(400);
    expect(asEndpointId.json()).toMatchObject({ message: `name: "${someonesEndpoint}" is an endpoint id` });
    for (const reserved of RESERVED_ENDPOINT_IDS.filter((id) => /^[a-z0-9][a-z0-9._-]*$/.test(id))) {
      const answer = await publish(reserved);
      expect({ reserved, status: answer.statusCode }).toEqual({ reserved, status: 400 });
      expect(answer.json()).toMatchObject({ message: expect.stringContaining('reserved') });
    }
    for (const bad of ['', 'Upper', '-lead', 'trail-', 'has space', 'a/b', 'x'.repeat(65), 42]) {
      const answer = await publish(bad);
      expect({ bad, status: answer.statusCode }).toEqual({ bad, status: 400 });
      expect(answer.json()).toMatchObject({ message: expect.stringContaining('name') });
    }
  });

  it('answers 409 for a taken name or an endpoint already published, 404 for another account’s endpoint', async () => {
    const first = await endpointOf(owner.accountId);
    const second = await endpointOf(owner.accountId);
    expect((await call('POST', '', owner.secret, { name: 'taken', endpointId: first })).statusCode).toBe(201);

    const sameName = await call('POST', '', owner.secret, { name: 'taken', endpointId: second });
    expect(sameName.statusCode).toBe(409);
    expect(sameName.json()).toMatchObject({ message: expect.stringContaining('"taken" is already published') });
    const sameEndpoint = await call('POST', '', owner.secret, { name: 'another', endpointId: first });
    expect(sameEndpoint.statusCode).toBe(409);
    expect(sameEndpoint.json()).toMatchObject({ message: expect.stringContaining('already published') });

    const foreign = await call('POST', '', other.secret, { name: 'stolen', endpointId: second });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toMatchObject({ message: 'Endpoint not found' });
  });

  it('publishes only QUEUE endpoints, with a key that may write, and checks the price', async () => {
    const lb = await endpointOf(owner.accountId, 'LOAD_BALANCER');
    const refused = await call('POST', '', owner.secret, { name: 'lb-model', endpointId: lb });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ message: expect.stringContaining('QUEUE') });

    const endpointId = await endpointOf(reader.accountId);
    expect((await call('POST', '', reader.secret, { name: 'read-only', endpointId })).statusCode).toBe(401);

    const mine = await endpointOf(owner.accountId);
    for (const pricePerRequest of [-1, 0.0000001, 1001, '1']) {
      const answer = await call('POST', '', owner.secret, { name: 'priced', endpointId: mine, pricePerRequest });
      expect({ pricePerRequest, status: answer.statusCode }).toEqual({ pricePerRequest, status: 400 });
      expect(answer.json()).toMatchObject({ message: expect.stringContaining('pricePerRequest') });
    }
    const unknownField = await call('POST', '', owner.secret, { name: 'priced', endpointId: mine, workers: 3 });
    expect(unknownField.statusCode).toBe(400);
  });
});
