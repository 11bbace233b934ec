import { seedCatalog } from '@runplane/catalog';
import { bearer, type GatewayHarness, startGateway } from './harness';

/** An account and its key. */
export interface Caller {
  accountId: string;
  secret: string;
}

/** A JSON answer: status, content type and body (read field by field by each expectation). */
export interface Answer {
  status: number;
  type: string | undefined;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** A gateway with a seeded catalog and two tenants, and request helpers for the serverless specs. */
export async function startServerlessWorld(label: string) {
  const gw = await startGateway(label);
  await seedCatalog(gw.db);
  const tenant: Caller = await gw.accountWithKey();
  const other: Caller = await gw.accountWithKey();
  const call = async (caller: Caller, method: string, url: string, payload?: unknown): Promise<Answer> => {
    const res = await gw.inject({
      method: method as 'GET',
      url,
      headers: bearer(caller.secret),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: res.statusCode, type: res.headers['content-type'], body: res.body === '' ? null : res.json() };
  };
  const expectProblem = async (answer: Promise<Answer>, status: number): Promise<Answer['body']> => {
    const { status: actual, type, body } = await answer;
    expect({ status: actual, type }).toEqual({ status, type: expect.stringMatching(/^application\/problem\+json/) });
    expect(body).toMatchObject({ status, title: expect.any(String), detail: expect.any(String) });
    return body;
  };
  const create = async (caller: Caller, body: Record<string, unknown>): Promise<Answer['body']> => {
    const answer = await call(caller, 'POST', '/v2/serverless', {
      name: 'worker',
      type: 'QUEUE',
      scaling: { type: 'QUEUE_DELAY', queueDelay: 4 },
      image: 'acme/worker:1',
      gpu: { pools: ['ADA_24'] },
      ...body,
    });
    expect(answer.status).toBe(201);
    return answer.body;
  };
  return { gw: gw as GatewayHarness, tenant, other, call, expectProblem, create };
}
