import type { TemplateDto } from '@runplane/contracts';
import { type Caller, type GatewayHarness, requestsAs, startGateway } from './harness';

/** A gateway with two accounts, the owner whose templates the specs create and another. */
export async function startTemplatesWorld(
  label: string,
): Promise<{ gw: GatewayHarness; owner: Caller; other: Caller }> {
  const gw = await startGateway(label);
  return { gw, owner: await gw.accountWithKey('ALL'), other: await gw.accountWithKey('ALL') };
}

/** Requests of the templates specs, on the gateway that `gw` returns when a test runs. */
export function templateRequests(gw: () => GatewayHarness) {
  const call = requestsAs(gw);
  async function create(caller: Caller, payload: object): Promise<TemplateDto> {
    const res = await call(caller, 'POST', '/v1/templates', payload);
    expect(res.statusCode).toBe(200);
    return res.json() as TemplateDto;
  }
  const idsOf = (body: unknown): string[] => (body as TemplateDto[]).map((t) => t.id);
  return { call, create, idsOf };
}
