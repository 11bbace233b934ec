import { seedCatalog } from '@runplane/catalog';
import { newId } from '@runplane/db';
import { servedRoutes } from '@runplane/testing';
import type { LightMyRequestResponse } from '@runplane/http';
import { dbState } from './db-state';
import { bearer, type GatewayHarness, startGateway } from './harness';
import { madeUpIds, type SweepAccount, sweepAccount, type SweepIds } from './sweep-fixture';

/**
 * Tenancy and scope sweep of every route the gateway registers (read from Fastify's route tree; the table below only
 * gives an example request per route, and a route without one fails the sweep).
 *
 * Tenancy: another account's keys on the owner's ids, and made-up ids, answer 404 (or 401 for a scope that may not
 * call the route at all) and change nothing in PostgreSQL.
 * Scope: what a route does decides who may call it. A route whose call by an ALL key changes state, or answers a
 * secret, refuses READ_ONLY keys (401, nothing changed); any other is a read READ_ONLY keys get exactly as ALL keys
 * do, and that must change nothing. RESTRICTED keys reach no account-wide route, and no route of another endpoint.
 */

interface Example {
  url: (ids: SweepIds) => string;
  payload?: (ids: SweepIds) => object;
  /** Puts the owner's resources in a state the route changes (e.g. a stopped Pod for start). */
  setup?: (gw: GatewayHarness, account: SweepAccount) => Promise<void>;
}

const name = () => ({ name: `renamed-${newId()}` });
const POD = { imageName: 'runplane/pod:1', gpuTypeIds: ['NVIDIA GeForce RTX 4090'], dataCenterIds: ['EU-RO-1'] };
const podAction = (action: string): Example => ({ url: (ids) => `/v1/pods/${ids.podId}/${action}` });
const stopped: Example['setup'] = async (gw, { ids, keys }) => {
  const res = await gw.inject({ method: 'POST', url: `/v1/pods/${ids.podId}/stop`, headers: bearer(keys.all) });
  if (res.statusCode !== 200) throw new Error(`stop: ${res.statusCode} ${res.body}`);
};

// A public endpoint is named by its model: the owner's endpoint published as `m-<endpointId>`.
const modelUrl = (ids: SweepIds): string => `/v1/public-endpoints/m-${ids.endpointId.toLowerCase()}`;
const published: Example['setup'] = async (gw, { ids, keys }) => {
  const payload = { name: `m-${ids.endpointId.toLowerCase()}`, endpointId: ids.endpointId };
  const res = await gw.inject({ method: 'POST', url: '/v1/public-endpoints', headers: bearer(keys.all), payload });
  if (res.statusCode !== 201) throw new Error(`publish: ${res.statusCode} ${res.body}`);
};

/** Example requests of the v1 routes that take a key. */
const EXAMPLES: Record<string, Example> = {
  'POST /v1/apikeys': { url: () => '/v1/apikeys', payload: name },
  'GET /v1/apikeys': { url: () => '/v1/apikeys' },
  'GET /v1/apikeys/:id': { url: (ids) => `/v1/apikeys/${ids.apiKeyId}` },
  'PATCH /v1/apikeys/:id': { url: (ids) => `/v1/apikeys/${ids.apiKeyId}`, payload: name },
  'POST /v1/apikeys/:id/update': { url: (ids) => `/v1/apikeys/${ids.apiKeyId}/update`, payload: name },
  'DELETE /v1/apikeys/:id': { url: (ids) => `/v1/apikeys/${ids.apiKeyId}` },
  'POST /v1/s3keys': { url: () => '/v1/s3keys', payload: name },
  'GET /v1/s3keys': { url: () => '/v1/s3keys' },
  'DELETE /v1/s3keys/:id': { url: (ids) => `/v1/s3keys/${ids.s3KeyId}` },
  'POST /v1/containerregistryauth': {
    url: () => '/v1/containerregistryauth',
    payload: () => ({ ...name(), username: 'u', password: 'p' }),
  },
  'GET /v1/containerregistryauth': { url: () => '/v1/containerregistryauth' },
  'GET /v1/containerregistryauth/:containerRegistryAuthId': {
    url: (ids) => `/v1/containerregistryauth/${ids.containerRegistryAuthId}`,
  },
  'DELETE /v1/containerregistryauth/:containerRegistryAuthId': {
    url: (ids) => `/v1/containerregistryauth/${ids.containerRegistryAuthId}`,
  },
  'POST /v1/templates': { url: () => '/v1/templates', payload: () => ({ ...name(), imageName: 'runplane/worker:3' }) },
  'GET /v1/templates': { url: () => '/v1/templates' },
  'GET /v1/templates/:templateId': { url: (ids) => `/v1/templates/${ids.templateId}` },
  'PATCH /v1/templates/:templateId': { url: (ids) => `/v1/templates/${ids.templateId}`, payload: name },
  'POST /v1/templates/:templateId/update': { url: (ids) => `/v1/templates/${ids.templateId}/update`, payload: name },
  'DELETE /v1/templates/:templateId': { url: (ids) => `/v1/templates/${ids.templateId}` },
  'POST /v1/networkvolumes': {
    url: () => '/v1/networkvolumes',
    payload: () => ({ ...name(), size: 10, dataCenterId: 'EU-RO-1' }),
  },
  'GET /v1/networkvolumes': { url: () => '/v1/networkvolumes' },
  'GET /v1/networkvolumes/:networkVolumeId': { url: (ids) => `/v1/networkvolumes/${ids.networkVolumeId}` },
  'PATCH /v1/networkvolumes/:networkVolumeId': {
    url: (ids) => `/v1/networkvolumes/${ids.networkVolumeId}`,
    payload: name,
  },
  'POST /v1/networkvolumes/:networkVolumeId/update': {
    url: (ids) => `/v1/networkvolumes/${ids.networkVolumeId}/update`,
    payload: name,
  },
  'DELETE /v1/networkvolumes/:networkVolumeId': { url: (ids) => `/v1/networkvolumes/${ids.networkVolumeId}` },
  'POST /v1/pods': { url: () => '/v1/pods', payload: () => ({ ...name(), ...POD }) },
  'GET /v1/pods': { url: () => '/v1/pods?includeWorkers=true' },
  'GET /v1/pods/:podId': { url: (ids) => `/v1/pods/${ids.podId}` },
  'PATCH /v1/pods/:podId': { url: (ids) => `/v1/pods/${ids.podId}`, payload: name },
  'POST /v1/pods/:podId/update': { url: (ids) => `/v1/pods/${ids.podId}/update`, payload: name },
  'DELETE /v1/pods/:podId': { url: (ids) => `/v1/pods/${ids.podId}` },
  'POST /v1/pods/:podId/start': { ...podAction('start'), setup: stopped },
  'POST /v1/pods/:podId/stop': podAction('stop'),
  'POST /v1/pods/:podId/restart': podAction('restart'),
  'POST /v1/pods/:podId/reset': podAction('reset'),
  'POST /v1/endpoints': {
    url: () => '/v1/endpoints',
    payload: (ids) => ({ ...name(), templateId: ids.templateId, gpuTypeIds: ['NVIDIA GeForce RTX 4090'] }),
  },
  'GET /v1/endpoints': { url: () => '/v1/endpoints' },
  'GET /v1/endpoints/:endpointId': { url: (ids) => `/v1/endpoints/${ids.endpointId}` },
  'PATCH /v1/endpoints/:endpointId': { url: (ids) => `/v1/endpoints/${ids.endpointId}`, payload: name },
  'POST /v1/endpoints/:endpointId/update': { url: (ids) => `/v1/endpoints/${ids.endpointId}/update`, payload: name },
  'DELETE /v1/endpoints/:endpointId': { url: (ids) => `/v1/endpoints/${ids.endpointId}` },
  'GET /v1/endpoints/:endpointId/webhook-deliveries': {
    url: (ids) => `/v1/endpoints/${ids.endpointId}/webhook-deliveries`,
  },
  'GET /v1/billing/pods': { url: () => '/v1/billing/pods' },
  'GET /v1/billing/endpoints': { url: () => '/v1/billing/endpoints' },
  'GET /v1/billing/networkvolumes': { url: () => '/v1/billing/networkvolumes' },
  'POST /v1/public-endpoints': {
    url: () => '/v1/public-endpoints',
    payload: (ids) => ({ name: `p-${ids.endpointId.toLowerCase()}`, endpointId: ids.endpointId }),
  },
  'GET /v1/public-endpoints': { url: () => '/v1/public-endpoints' },
  'GET /v1/public-endpoints/:name': { url: modelUrl, setup: published },
  'PATCH /v1/public-endpoints/:name': { url: modelUrl, payload: () => ({ description: 'changed' }), setup: published },
  'DELETE /v1/public-endpoints/:name': { url: modelUrl, setup: published },
  'GET /v1/webhooks/secret': { url: () => '/v1/webhooks/secret' },
  'POST /v1/webhooks/secret/rotate': { url: () => '/v1/webhooks/secret/rotate' },
  // The legacy GraphQL API (its own specs: apps/gateway/test/graphql-*.e2e.spec.ts); a read here.
  'POST /graphql': { url: () => '/graphql', payload: () => ({ query: 'query { myself { id pods { id } } }' }) },
};

/** Routes served without a key, which hold no account's data. */
const PUBLIC_ROUTES = [
  'GET /healthz',
  'GET /readyz',
  'GET /metrics',
  'GET /v1/openapi.json',
  'GET /v1/docs',
  'GET /v1/docs/',
  'GET /v1/docs/js/scalar.js',
];

/** A credential in an answer: a webhook signing secret, an API key's secret or an S3 key's secret. */
const SECRET = /whsec_|"key":"rpl_|"secretAccessKey"/;

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

describe('v1 tenancy and scope sweep', () => {
  let gw: GatewayHarness;
  let intruder: SweepAccount;

  beforeAll(async () => {
    gw = await startGateway('sweep');
    await seedCatalog(gw.db);
    intruder = await sweepAccount(gw);
  });
  afterAll(() => gw.close());

  const state = () => dbState(gw.db);

  /** Every id the sweep's accounts hold, none of which a public route may name. */
  const idsMade: string[] = [];

  async function freshAccount(): Promise<SweepAccount> {
    const account = await sweepAccount(gw);
    idsMade.push(account.accountId, ...Object.values(account.ids));
    return account;
  }

  function send(route: string, ids: SweepIds, key: string): Promise<LightMyRequestResponse> {
    const example = EXAMPLES[route];
    if (!example) throw new Error(`no example for ${route}`);
    const method = route.split(' ')[0] as Method;
    const payload = example.payload?.(ids);
    return gw.inject({ method, url: example.url(ids), headers: bearer(key), ...(payload ? { payload } : {}) });
  }

  /** Fails naming the route and showing the answer when its status is not one of `statuses`. */
  function expectStatus(res: LightMyRequestResponse, statuses: number[], route: string): void {
    const status = statuses.includes(res.statusCode) ? statuses : res.statusCode;
    expect({ route, status, body: res.body }).toEqual({ route, status: statuses, body: res.body });
  }

  function expectError(res: LightMyRequestResponse, statuses: number[], route: string): void {
    expectStatus(res, statuses, route);
    expect(res.json()).toMatchObject({
      message: expect.any(String),
      code: expect.any(String),
      requestId: expect.any(String),
    });
  }

  it('has an example for every route the gateway serves, and none for a route it does not serve', () => {
    // The v2 management API has sweeps of its own (apps/gateway/test/v2-*.e2e.spec.ts).
    const served = servedRoutes(gw.app.getHttpAdapter().getInstance().printRoutes())
      .filter((route) => !/^\S+ \/v2(\/|$)/.test(route))
      .sort();
    expect(served).toEqual([...Object.keys(EXAMPLES), ...PUBLIC_ROUTES].sort());
  });

  const withIds = Object.keys(EXAMPLES).filter((route) => route.includes(':'));

  it.each(withIds)('%s: another account’s or a made-up id answers 404 and changes nothing', async (route) => {
    const owner = await freshAccount();
    await EXAMPLES[route]?.setup?.(gw, owner);
    const before = await state();
    expectError(await send(route, owner.ids, intruder.keys.all), [404], route);
    expectError(await send(route, owner.ids, intruder.keys.readOnly), [401, 404], route);
    expectError(await send(route, owner.ids, intruder.keys.restricted), [401, 404], route);
    expectError(await send(route, madeUpIds(), owner.keys.all), [404], route);
    expect(await send(route, owner.ids, intruder.keys.all).then((res) => res.body)).not.toContain(owner.ids.podId);
    expect(await state()).toEqual(before);
  });

  it.each(Object.keys(EXAMPLES))('%s: READ_ONLY and RESTRICTED keys are let in by what it does', async (route) => {
    const owner = await freshAccount();
    await EXAMPLES[route]?.setup?.(gw, owner);
    const before = await state();
    expectError(await send(route, owner.ids, owner.keys.restrictedElsewhere), [401], route);
    const restricted = await send(route, owner.ids, owner.keys.restricted);
    // Only an endpoint's own routes may let its RESTRICTED key in (and then as a read, checked below with READ_ONLY).
    if (!route.includes(':endpointId')) expectError(restricted, [401], route);
    expect(await state()).toEqual(before);
    const readOnly = await send(route, owner.ids, owner.keys.readOnly);
    expect({ route, readOnlyChangedState: await state() }).toEqual({ route, readOnlyChangedState: before });
    const all = await send(route, owner.ids, owner.keys.all);
    expectStatus(all, [200, 201, 204], route);
    const writes = JSON.stringify(await state()) !== JSON.stringify(before);
    if (writes || SECRET.test(all.body)) {
      expectError(readOnly, [401], route);
      expect(readOnly.json()).toMatchObject({ message: expect.stringMatching(/^This API key is read-only/) });
      expect(restricted.statusCode).toBe(401);
    } else {
      expect({ route, readOnly: readOnly.statusCode }).toEqual({ route, readOnly: all.statusCode });
      expect([401, all.statusCode]).toContain(restricted.statusCode);
    }
  });

  it.each(PUBLIC_ROUTES)('%s answers without a key and names no account or resource', async (route) => {
    // At least one account with one resource of each kind, whatever ran before.
    await freshAccount();
    const res = await gw.inject({ method: 'GET', url: route.split(' ')[1] ?? '' });
    expect(res.statusCode).toBe(200);
    for (const id of idsMade) expect(res.body).not.toContain(id);
  });
});
