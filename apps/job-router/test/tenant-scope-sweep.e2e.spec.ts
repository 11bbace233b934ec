import { createAccountsServices } from '@runplane/accounts';
import { newId } from '@runplane/db';
import { servedRoutes } from '@runplane/testing';
import type { LightMyRequestResponse } from '@runplane/http';
import { bearer, type JobRouterHarness, raw, startJobRouter } from './harness';
import { jobState, keysUnder } from './redis-state';
import { SweepJobs } from './sweep-jobs';

/**
 * Tenancy and scope sweep of every route the job-router registers (read from Fastify's route tree; the tables below
 * only give an example request per route, and a route without one fails the sweep).
 *
 * Tenancy: another account's keys, on the owner's endpoint, answer 404 and change nothing, not even the endpoint's
 * rate and concurrency counters; so do made-up endpoint ids and another endpoint's job ids.
 * Scope: what a route does decides who may call it. A route whose call by an ALL key changes the job state is a write
 * and refuses READ_ONLY keys (401, nothing changed); any other is a read that READ_ONLY keys get exactly as ALL keys
 * do, and that must change nothing. RESTRICTED keys reach every client route of their own endpoints only; worker routes
 * take worker credentials only.
 */

interface Example {
  /** Path and query after `/v2/{endpointId}/`. */
  path: string;
  payload?: object;
  /** The route waits for its job: a worker answers it while the request is open. */
  waits?: boolean;
}

type Make = (jobs: SweepJobs) => Promise<Example>;

const INPUT = { input: { n: 1 } };
const CHAT = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

/** Example requests of the client routes; a route whose query changes what it does has one per meaning. */
const CLIENT_EXAMPLES: Record<string, Make[]> = {
  'POST /v2/:endpointId/run': [async () => ({ path: 'run', payload: INPUT })],
  'POST /v2/:endpointId/runsync': [async () => ({ path: 'runsync?wait=60000', payload: INPUT, waits: true })],
  'GET /v2/:endpointId/status/:jobId': [
    async (jobs) => ({ path: `status/${await jobs.queued()}` }),
    async (jobs) => ({ path: `status/${await jobs.queued()}?ttl=60000` }),
  ],
  'POST /v2/:endpointId/status/:jobId': [
    async (jobs) => ({ path: `status/${await jobs.completed()}` }),
    async (jobs) => ({ path: `status/${await jobs.completed()}?ttl=60000` }),
  ],
  'GET /v2/:endpointId/status-sync/:jobId': [
    async (jobs) => ({ path: `status-sync/${await jobs.completed()}?wait=60000` }),
  ],
  'POST /v2/:endpointId/status-sync/:jobId': [
    async (jobs) => ({ path: `status-sync/${await jobs.completed()}?wait=60000` }),
  ],
  'GET /v2/:endpointId/stream/:jobId': [async (jobs) => ({ path: `stream/${await jobs.streaming()}?wait=1000` })],
  'POST /v2/:endpointId/stream/:jobId': [async (jobs) => ({ path: `stream/${await jobs.streaming()}?wait=1000` })],
  'POST /v2/:endpointId/cancel/:jobId': [async (jobs) => ({ path: `cancel/${await jobs.queued()}` })],
  'POST /v2/:endpointId/retry/:jobId': [async (jobs) => ({ path: `retry/${await jobs.failed()}` })],
  'POST /v2/:endpointId/purge-queue': [async (jobs) => ({ path: `purge-queue?queued=${await jobs.queued()}` })],
  'GET /v2/:endpointId/health': [async (jobs) => ({ path: `health?queued=${await jobs.queued()}` })],
  'GET /v2/:endpointId/metrics': [async (jobs) => ({ path: `metrics?running=${await jobs.running()}` })],
  'GET /v2/:endpointId/requests': [async (jobs) => ({ path: `requests?limit=10&done=${await jobs.completed()}` })],
  'GET /v2/:endpointId/openai/v1/*': [async () => ({ path: 'openai/v1/models', waits: true })],
  'POST /v2/:endpointId/openai/v1/*': [
    async () => ({ path: 'openai/v1/chat/completions', payload: CHAT, waits: true }),
  ],
};

/** Example requests of the worker protocol. */
const WORKER_EXAMPLES: Record<string, Example> = {
  'GET /v2/:endpointId/job-take/:workerId': { path: 'job-take/w-1?job_in_progress=0' },
  'GET /v2/:endpointId/job-take-batch/:workerId': { path: 'job-take-batch/w-1?batch_size=2&job_in_progress=0' },
  'POST /v2/:endpointId/job-done/:workerId/:jobId': {
    path: 'job-done/w-1/job-1?isStream=false',
    payload: { output: 1 },
  },
  'POST /v2/:endpointId/job-stream/:workerId/:jobId': { path: 'job-stream/w-1/job-1', payload: { output: 1 } },
  'GET /v2/:endpointId/ping/:workerId': { path: 'ping/w-1?runpod_version=1.7.0' },
  'GET /v2/:endpointId/job-stop/:workerId': { path: 'job-stop/w-1' },
};

/** Routes served without a key, which hold no account's data. */
const PUBLIC_ROUTES = ['GET /healthz', 'GET /readyz', 'GET /metrics'];
/**
 * Routes every valid key reads alike, whose answer belongs to no account: the public models (tenancy on a model is
 * apps/job-router/test/public-endpoints.e2e.spec.ts's).
 */
const INSTALLATION_ROUTES = ['GET /v2/public-endpoints'];

type Method = 'GET' | 'POST';

describe('job-router tenancy and scope sweep', () => {
  let h: JobRouterHarness;
  let owner: { accountId: string; secret: string };
  let ownerReadOnly: string;
  let ownerRestrictedElsewhere: string;
  let intruder: { accountId: string; secret: string };
  let intruderReadOnly: string;
  let intruderEndpoint: string;

  beforeAll(async () => {
    // A window no test outlasts and limits no test reaches: the counters only change when a request is counted.
    const high = 'runsync,run,status,stream,cancel,openai,requests'.split(',').map((op) => `${op}=100000/1000`);
    h = await startJobRouter('jr-sweep', {
      JOB_RATE_WINDOW_MS: '3600000',
      JOB_RATE_LIMITS: [...high, 'purge-queue=100000/0'].join(','),
      JOB_RATE_PER_WORKER: '0',
    });
    owner = await h.accountWithKey();
    intruder = await h.accountWithKey();
    ownerReadOnly = await keyOf(owner.accountId, 'READ_ONLY');
    ownerRestrictedElsewhere = await keyOf(owner.accountId, 'RESTRICTED', [await h.endpoint(owner.accountId)]);
    intruderReadOnly = await keyOf(intruder.accountId, 'READ_ONLY');
    intruderEndpoint = await h.endpoint(intruder.accountId);
  });
  afterAll(() => h.close());

  async function keyOf(accountId: string, scope: 'READ_ONLY' | 'RESTRICTED', endpoints?: string[]): Promise<string> {
    const { apiKeys } = createAccountsServices(h.db);
    return (await apiKeys.create(accountId, { name: scope, scope, allowedEndpointIds: endpoints })).secret;
  }

  const state = () => jobState(h.redis, h.config.REDIS_PREFIX);
  /** The endpoint's request counters: a counted request adds one to a rate counter (and takes a concurrency slot). */
  async function countersOf(endpointId: string): Promise<Record<string, string | null>> {
    const keys = (await keysUnder(h.redis, `${h.config.REDIS_PREFIX}limits:rate:`)).filter((key) =>
      key.includes(endpointId),
    );
    return Object.fromEntries(await Promise.all(keys.map(async (key) => [key, await h.redis.get(key)] as const)));
  }

  function send(method: Method, endpointId: string, example: Example, headers: Record<string, string>) {
    const { payload } = example;
    return h.inject({ method, url: `/v2/${endpointId}/${example.path}`, headers, ...(payload ? { payload } : {}) });
  }

  function expectError(res: LightMyRequestResponse, status: 401 | 404, route: string): void {
    expect({ route, status: res.statusCode, body: res.body }).toEqual({ route, status, body: res.body });
    expect(res.json()).toMatchObject({
      error: expect.any(String),
      code: status === 401 ? 'UNAUTHORIZED' : 'NOT_FOUND',
      requestId: expect.any(String),
    });
  }

  /** Every endpoint the sweep made, none of which a public route may name. */
  const endpointsMade: string[] = [];

  async function freshEndpoint(): Promise<string> {
    const endpointId = await h.endpoint(owner.accountId);
    endpointsMade.push(endpointId);
    return endpointId;
  }

  /** A fresh endpoint of the owner with its example request made ready. */
  async function prepared(make: Make): Promise<{ jobs: SweepJobs; example: Example }> {
    const jobs = new SweepJobs(h, owner.secret, await freshEndpoint());
    return { jobs, example: await make(jobs) };
  }

  it('has an example for every route the job-router serves, and none for a route it does not serve', () => {
    const served = servedRoutes(h.app.getHttpAdapter().getInstance().printRoutes()).sort();
    const known = [
      ...Object.keys(CLIENT_EXAMPLES),
      ...Object.keys(WORKER_EXAMPLES),
      ...PUBLIC_ROUTES,
      ...INSTALLATION_ROUTES,
    ].sort();
    expect(served).toEqual(known);
  });

  const clientCases = Object.entries(CLIENT_EXAMPLES).flatMap(([route, makes]) =>
    makes.map((make, i) => [`${route} #${i + 1}`, route, make] as const),
  );

  it.each(clientCases)(
    '%s: another account’s or a made-up id answers 404 and costs nothing',
    async (name, route, make) => {
      const method = route.split(' ')[0] as Method;
      const { jobs, example } = await prepared(make);
      const restrictedToIt = await keyOf(intruder.accountId, 'RESTRICTED', [jobs.endpointId]);
      const made = `made-up-${newId()}`;
      const [before, budget] = [await state(), await countersOf(jobs.endpointId)];
      expectError(await send(method, jobs.endpointId, example, bearer(intruder.secret)), 404, name);
      expectError(await send(method, jobs.endpointId, example, raw(restrictedToIt)), 404, name);
      expect([401, 404]).toContain((await send(method, jobs.endpointId, example, bearer(intruderReadOnly))).statusCode);
      expectError(await send(method, made, example, bearer(owner.secret)), 404, name);
      // The owner's job id under another account's endpoint is no job of it.
      if (route.includes(':jobId'))
        expectError(await send(method, intruderEndpoint, example, bearer(intruder.secret)), 404, name);
      expect(await state()).toEqual(before);
      expect(await countersOf(jobs.endpointId)).toEqual(budget);
      expect(await keysUnder(h.redis, h.config.REDIS_PREFIX)).not.toContainEqual(expect.stringContaining(made));
    },
  );

  it.each(clientCases)('%s: READ_ONLY and RESTRICTED keys are let in by what it does', async (name, route, make) => {
    const method = route.split(' ')[0] as Method;
    const { jobs, example } = await prepared(make);
    const call = (headers: Record<string, string>, serve: boolean) => {
      const request = send(method, jobs.endpointId, example, headers);
      return serve && example.waits ? jobs.serveWhile(request) : request;
    };
    const before = await state();
    expectError(await call(bearer(ownerRestrictedElsewhere), false), 401, name);
    expect(await state()).toEqual(before);
    const readOnly = await call(bearer(ownerReadOnly), false);
    const afterReadOnly = await state();
    expect({ name, readOnlyChangedState: afterReadOnly }).toEqual({ name, readOnlyChangedState: before });
    const all = await call(bearer(owner.secret), true);
    expect({ name, all: all.statusCode }).toEqual({ name, all: 200 });
    const writes = JSON.stringify(await state()) !== JSON.stringify(afterReadOnly);
    if (writes) {
      expectError(readOnly, 401, name);
      expect(readOnly.json()).toMatchObject({ error: 'This API key is read-only' });
    } else {
      expect({ name, readOnly: readOnly.statusCode }).toEqual({ name, readOnly: 200 });
    }
    // A key restricted to this endpoint does what an ALL key does, on a request of its own.
    const again = await prepared(make);
    const restricted = await keyOf(owner.accountId, 'RESTRICTED', [again.jobs.endpointId]);
    const answer = send(method, again.jobs.endpointId, again.example, raw(restricted));
    expect({
      name,
      restricted: (await (again.example.waits ? again.jobs.serveWhile(answer) : answer)).statusCode,
    }).toEqual({ name, restricted: 200 });
  });

  it.each(Object.entries(WORKER_EXAMPLES))(
    '%s: takes only worker credentials of the endpoint’s owner',
    async (route, example) => {
      const method = route.split(' ')[0] as Method;
      const endpointId = await freshEndpoint();
      const restricted = await keyOf(owner.accountId, 'RESTRICTED', [endpointId]);
      const made = `made-up-${newId()}`;
      const before = await state();
      expectError(await send(method, endpointId, example, raw(ownerReadOnly)), 401, route);
      expectError(await send(method, endpointId, example, raw(restricted)), 401, route);
      expectError(await send(method, endpointId, example, raw(intruder.secret)), 404, route);
      expectError(
        await send(method, endpointId, example, raw(await h.workerToken(intruderEndpoint, 'w-1'))),
        401,
        route,
      );
      expectError(await send(method, made, example, raw(owner.secret)), 404, route);
      expect(await state()).toEqual(before);
      expect(await keysUnder(h.redis, h.config.REDIS_PREFIX)).not.toContainEqual(expect.stringContaining(endpointId));
      expect(await keysUnder(h.redis, h.config.REDIS_PREFIX)).not.toContainEqual(expect.stringContaining(made));
    },
  );

  it.each(PUBLIC_ROUTES)('%s answers without a key and names no account', async (route) => {
    // At least one endpoint with a finished job, whatever ran before.
    await new SweepJobs(h, owner.secret, await freshEndpoint()).completed();
    const res = await h.inject({ method: 'GET', url: route.split(' ')[1] ?? '' });
    expect(res.statusCode).toBe(200);
    // /metrics labels series by endpoint id for the operator (the chart's Ingress never routes it); probes name none.
    const named = route === 'GET /metrics' ? [] : [intruderEndpoint, ...endpointsMade];
    for (const id of [owner.accountId, intruder.accountId, ...named]) expect(res.body).not.toContain(id);
  });
});
