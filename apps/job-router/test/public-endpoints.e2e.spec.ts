import { newId } from '@runplane/db';
import { pollUntil } from '@runplane/testing';
import { bearer, type JobRouterHarness, startJobRouter } from './harness';

/**
 * A public model on the job API: every account calls it by name with its own key, sees only its own jobs, never the
 * endpoint's workers or endpoint-wide routes, and has its own rate limits there.
 */
describe('job-router public endpoints', () => {
  let h: JobRouterHarness;
  let owner: { accountId: string; secret: string };
  let alice: { accountId: string; secret: string };
  let bob: { accountId: string; secret: string };
  let endpointId: string;

  beforeAll(async () => {
    h = await startJobRouter('jr-public-endpoints', { JOB_RATE_LIMITS: 'run=4/0', JOB_RATE_PER_WORKER: '0' });
    owner = await h.accountWithKey();
    alice = await h.accountWithKey();
    bob = await h.accountWithKey();
    endpointId = await h.endpoint(owner.accountId);
    await publish('echo-model', endpointId);
  });
  afterAll(() => h.close());

  function publish(name: string, id: string) {
    return h.db.publicEndpoint.create({
      data: {
        id: newId(),
        name,
        endpointId: id,
        accountId: owner.accountId,
        description: 'Echoes its input',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
        outputSchema: { type: 'object', properties: { echo: {} } },
      },
    });
  }

  const call = (
    method: 'GET' | 'POST',
    path: string,
    secret: string,
    extra: { payload?: object; headers?: object } = {},
  ) =>
    h.inject({ method, url: `/v2/${path}`, headers: { ...bearer(secret), ...extra.headers }, payload: extra.payload });
  const run = (secret: string, path = 'echo-model', headers = {}) =>
    call('POST', `${path}/run`, secret, { payload: { input: { text: 'hi' } }, headers });

  it('lists the public models with their input and output description, nothing of the endpoint', async () => {
    const answer = await call('GET', 'public-endpoints', alice.secret);
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({
      models: [
        {
          name: 'echo-model',
          description: 'Echoes its input',
          input: { type: 'object', properties: { text: { type: 'string' } } },
          output: { type: 'object', properties: { echo: {} } },
          pricePerRequest: null,
        },
      ],
    });
    expect(answer.body).not.toContain(endpointId);
    expect((await h.inject({ method: 'GET', url: '/v2/public-endpoints' })).statusCode).toBe(401);
  });

  it("lets each caller see and change only its own jobs, never the worker, never another caller's", async () => {
    const mine = (await run(alice.secret)).json<{ id: string; status: string }>();
    expect(mine.status).toBe('IN_QUEUE');
    const theirs = (await run(bob.secret)).json<{ id: string }>();

    const status = await call('GET', `echo-model/status/${mine.id}`, alice.secret);
    expect(status.statusCode).toBe(200);
    expect(status.json()).toEqual({ id: mine.id, status: 'IN_QUEUE', retries: 0 });

    for (const [method, path] of [
      ['GET', `status/${theirs.id}`],
      ['POST', `status/${theirs.id}?ttl=60000`],
      ['GET', `status-sync/${theirs.id}?wait=1000`],
      ['GET', `stream/${theirs.id}?wait=1000`],
      ['POST', `cancel/${theirs.id}`],
    ] as const) {
      const answer = await call(method, `echo-model/${path}`, alice.secret);
      expect({ path, status: answer.statusCode, body: answer.json() }).toMatchObject({
        path,
        status: 404,
        body: { error: `Job ${theirs.id} not found` },
      });
    }
    // The owner calling the model by name is one more caller; by its endpoint id it runs the endpoint as before.
    expect((await call('GET', `echo-model/status/${mine.id}`, owner.secret)).statusCode).toBe(404);
    expect((await call('GET', `${endpointId}/status/${mine.id}`, owner.secret)).statusCode).toBe(200);
    expect((await call('GET', `${endpointId}/status/${mine.id}`, alice.secret)).statusCode).toBe(404);

    expect((await call('POST', `echo-model/cancel/${theirs.id}`, bob.secret)).json()).toEqual({
      id: theirs.id,
      status: 'CANCELLED',
    });
  });

  it('answers 404 for the endpoint-wide routes and /retry on a public model', async () => {
    const job = (await run(alice.secret)).json<{ id: string }>();
    for (const [method, path] of [
      ['GET', 'health'],
      ['GET', 'metrics'],
      ['GET', 'requests'],
      ['POST', 'purge-queue'],
      ['POST', `retry/${job.id}`],
    ] as const) {
      const answer = await call(method, `echo-model/${path}`, alice.secret);
      expect({ path, status: answer.statusCode }).toEqual({ path, status: 404 });
    }
    expect((await call('GET', `${endpointId}/health`, owner.secret)).statusCode).toBe(200);
  });

  it('keeps Idempotency-Keys per caller', async () => {
    // Fresh callers: the run limit (4 per window) counts per caller.
    const [alice, bob] = [await h.accountWithKey(), await h.accountWithKey()];
    const key = { 'idempotency-key': `same-${newId()}` };
    const first = (await run(alice.secret, 'echo-model', key)).json<{ id: string }>();
    const again = (await run(alice.secret, 'echo-model', key)).json<{ id: string }>();
    const other = (await run(bob.secret, 'echo-model', key)).json<{ id: string }>();
    expect(again.id).toBe(first.id);
    expect(other.id).not.toBe(first.id);
    expect((await call('GET', `echo-model/status/${other.id}`, bob.secret)).statusCode).toBe(200);
  });

  it("counts each caller's requests against its own limits, never the owner's or another caller's", async () => {
    const [busy, quiet] = [await h.accountWithKey(), await h.accountWithKey()];
    const answers = [];
    for (let i = 0; i < 5; i += 1) answers.push((await run(busy.secret)).statusCode);
    expect(answers).toEqual([200, 200, 200, 200, 429]);
    expect((await run(quiet.secret)).statusCode).toBe(200);
    expect((await run(owner.secret, endpointId)).statusCode).toBe(200);
  });

  it('answers 404 and leaves the list while the endpoint is switched to LOAD_BALANCER', async () => {
    await h.db.endpoint.update({ where: { id: endpointId }, data: { type: 'LOAD_BALANCER' } });
    await pollUntil(async () => (await run(bob.secret)).statusCode === 404 || undefined, {
      timeoutMs: 15_000,
      description: 'the model of a load-balancing endpoint to answer 404',
    });
    expect((await call('GET', 'public-endpoints', bob.secret)).json()).toEqual({ models: [] });
    await h.db.endpoint.update({ where: { id: endpointId }, data: { type: 'QUEUE' } });
    await pollUntil(async () => (await run(bob.secret)).statusCode === 200 || undefined, {
      timeoutMs: 15_000,
      description: 'the model to take jobs again',
    });
  });

  it('answers 404 once the model is unpublished, and the name can be published again', async () => {
    const job = (await run(bob.secret)).json<{ id: string }>();
    await h.db.publicEndpoint.deleteMany({ where: { name: 'echo-model' } });
    await pollUntil(async () => (await run(bob.secret)).statusCode === 404 || undefined, {
      timeoutMs: 15_000,
      description: 'the unpublished model to answer 404',
    });
    expect((await call('GET', `echo-model/status/${job.id}`, bob.secret)).statusCode).toBe(404);
    expect((await call('GET', 'public-endpoints', bob.secret)).json()).toEqual({ models: [] });

    const next = await h.endpoint(owner.accountId);
    await publish('echo-model', next);
    await pollUntil(async () => (await run(bob.secret)).statusCode === 200 || undefined, {
      timeoutMs: 15_000,
      description: 'the model published again to answer',
    });
  });
});
