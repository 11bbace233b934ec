import type { EndpointDto, PodDto, TemplateDto } from '@runplane/contracts';
import { WorkerStateStore } from '@runplane/endpoints';
import { REDIS_CLIENT } from '@runplane/http';
import type { Redis } from '@runplane/queue';
import type { GatewayHarness } from './harness';
import { type Caller, endpointRequests, type Method, startEndpointsWorld } from './endpoints-fixture';

describe('v1 /endpoints: reads, worker states and tenancy', () => {
  let gw: GatewayHarness;
  let owner: Caller;
  let other: Caller;
  let template: TemplateDto;
  let otherTemplate: TemplateDto;
  const { call, ok, createEndpoint } = endpointRequests(() => ({ gw, owner }));

  beforeAll(async () => {
    ({ gw, owner, other, template, otherTemplate } = await startEndpointsWorld('endpoints-reads'));
  });
  afterAll(() => gw.close());

  it('includes the template and the worker Pods only when asked', async () => {
    const ep = await createEndpoint({ templateId: template.id, name: 'with workers' });
    const bare = await createEndpoint({ templateId: template.id, name: 'no workers' });
    for (const id of ['worker-a', 'worker-b']) {
      await gw.db.pod.create({
        data: {
          id,
          accountId: owner.accountId,
          image: 'runplane/worker:1',
          endpointId: ep.id,
          templateId: template.id,
          slsVersion: 0,
        },
      });
    }
    const plain = await ok<EndpointDto>(owner, 'GET', `/v1/endpoints/${ep.id}`);
    expect(plain).not.toHaveProperty('template');
    expect(plain).not.toHaveProperty('workers');
    expect(plain).not.toHaveProperty('workerStates');

    const full = await ok<EndpointDto>(owner, 'GET', `/v1/endpoints/${ep.id}?includeTemplate=true&includeWorkers=true`);
    expect(full.template).toEqual(await ok<TemplateDto>(owner, 'GET', `/v1/templates/${template.id}`));
    const workers = full.workers as PodDto[];
    expect(workers.map((pod) => pod.id).sort()).toEqual(['worker-a', 'worker-b']);
    expect(workers[0]).toMatchObject({ endpointId: ep.id, aiApiId: ep.id, slsVersion: 0 });

    expect(full.workerStates).toEqual([]);

    const listed = await ok<EndpointDto[]>(owner, 'GET', '/v1/endpoints?includeWorkers=true');
    expect(listed.find((e) => e.id === ep.id)?.workers).toHaveLength(2);
    expect(listed.find((e) => e.id === bare.id)?.workers).toEqual([]);
    expect(listed.find((e) => e.id === bare.id)?.workerStates).toEqual([]);
    expect(listed.every((e) => e.template === undefined)).toBe(true);
    const withTemplates = await ok<EndpointDto[]>(owner, 'GET', '/v1/endpoints?includeTemplate=1');
    expect(withTemplates.every((e) => e.template?.id === e.templateId)).toBe(true);
    expect(withTemplates.every((e) => e.workers === undefined && e.workerStates === undefined)).toBe(true);
    expect((await call(owner, 'GET', '/v1/endpoints?includeWorkers=maybe')).statusCode).toBe(400);

    expect((await call(owner, 'DELETE', `/v1/endpoints/${ep.id}`)).statusCode).toBe(204);
    expect(await gw.db.pod.count({ where: { endpointId: ep.id } })).toBe(0);
    expect(await gw.db.pod.count({ where: { id: { in: ['worker-a', 'worker-b'] } } })).toBe(0);
  });

  it('lists endpoints on different templates, each with its own template', async () => {
    const second = await ok<TemplateDto>(owner, 'POST', '/v1/templates', {
      name: 'second worker',
      imageName: 'runplane/worker:2',
      isServerless: true,
    });
    const onFirst = await createEndpoint({ templateId: template.id, name: 'on the first' });
    const onSecond = await createEndpoint({ templateId: second.id, name: 'on the second' });
    const listed = await ok<EndpointDto[]>(owner, 'GET', '/v1/endpoints?includeTemplate=true');
    expect(listed.find((e) => e.id === onFirst.id)?.template).toEqual(
      await ok<TemplateDto>(owner, 'GET', `/v1/templates/${template.id}`),
    );
    expect(listed.find((e) => e.id === onSecond.id)?.template).toEqual(
      await ok<TemplateDto>(owner, 'GET', `/v1/templates/${second.id}`),
    );
    for (const ep of [onFirst, onSecond])
      expect((await call(owner, 'DELETE', `/v1/endpoints/${ep.id}`)).statusCode).toBe(204);
  });

  it('says with the workers why jobs wait: the states the scheduler published, with its reasons', async () => {
    const ep = await createEndpoint({ templateId: template.id, name: 'waiting' });
    const calm = await createEndpoint({ templateId: template.id, name: 'calm' });
    // What the scheduler's autoscaler writes each pass, in its wording (apps/scheduler/test/workers.kube.spec.ts and
    // crash-loop.e2e.spec.ts show it).
    const states = new WorkerStateStore(gw.app.get<Redis>(REDIS_CLIENT));
    const noRoom = 'There are no longer any instances available with the requested specifications. Please refresh and try '
      + 'again. (NVIDIA A40: 1 GPU requested, at most 0 free on one machine)'; // prettier-ignore
    await states.replace(ep.id, [
      { workerId: 'throttled-1', state: 'throttled', reason: noRoom },
      { workerId: 'crashed', state: 'unhealthy', reason: 'CrashLoopBackOff after 3 restarts (exit code 1)' },
      { workerId: 'starting', state: 'initializing' },
    ]);
    const got = await ok<EndpointDto>(owner, 'GET', `/v1/endpoints/${ep.id}?includeWorkers=true`);
    expect(got.workerStates).toEqual([
      { workerId: 'starting', state: 'initializing' },
      { workerId: 'crashed', state: 'unhealthy', reason: 'CrashLoopBackOff after 3 restarts (exit code 1)' },
      { workerId: 'throttled-1', state: 'throttled', reason: noRoom },
    ]);
    const listed = await ok<EndpointDto[]>(owner, 'GET', '/v1/endpoints?includeWorkers=true');
    expect(listed.find((e) => e.id === ep.id)?.workerStates).toEqual(got.workerStates);
    expect(listed.find((e) => e.id === calm.id)?.workerStates).toEqual([]);
    // Another account sees nothing of them.
    const theirs = await call(other, 'GET', `/v1/endpoints/${ep.id}?includeWorkers=true`);
    expect(theirs.statusCode).toBe(404);
    expect(theirs.body).not.toContain('CrashLoopBackOff');
    // Deleting the endpoint forgets them.
    expect((await call(owner, 'DELETE', `/v1/endpoints/${ep.id}`)).statusCode).toBe(204);
    expect((await states.read(ep.id)).workers).toEqual([]);
  });

  it("lists only the caller's endpoints, oldest first, and answers 404 for another account's", async () => {
    const theirs = await createEndpoint({ templateId: otherTemplate.id, name: 'theirs' }, other);
    const mine = await ok<EndpointDto[]>(owner, 'GET', '/v1/endpoints');
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((e) => e.userId === owner.accountId)).toBe(true);
    expect(mine.map((e) => e.createdAt)).toEqual([...mine.map((e) => e.createdAt)].sort());
    const attempts: Array<[Method, string, object?]> = [
      ['GET', `/v1/endpoints/${theirs.id}`],
      ['GET', `/v1/endpoints/${theirs.id}?includeTemplate=true&includeWorkers=true`],
      ['PATCH', `/v1/endpoints/${theirs.id}`, { name: 'stolen' }],
      ['POST', `/v1/endpoints/${theirs.id}/update`, { name: 'stolen' }],
      ['DELETE', `/v1/endpoints/${theirs.id}`],
    ];
    for (const [method, url, payload] of attempts) {
      const res = await call(owner, method, url, payload);
      expect({ method, url, status: res.statusCode, body: res.json() as object }).toEqual({
        method,
        url,
        status: 404,
        body: expect.objectContaining({ message: 'Endpoint not found' }),
      });
      expect(res.body).not.toContain('theirs');
    }
    expect(await ok<EndpointDto>(other, 'GET', `/v1/endpoints/${theirs.id}`)).toEqual(theirs);
  });

  it("shows the template's env under the endpoint's own, and nothing of a template that turned private", async () => {
    const shared = await ok<TemplateDto>(other, 'POST', '/v1/templates', {
      name: 'shared env',
      imageName: 'other/shared:2',
      isPublic: true,
      env: { SHARED: 'yes', BOTH: 'template' },
    });
    const ep = await createEndpoint({ templateId: shared.id, name: 'on a shared template' });
    // v1 creates endpoints without env of their own; GraphQL's saveEndpoint writes it.
    await gw.db.endpoint.update({ where: { id: ep.id }, data: { env: { BOTH: 'endpoint' } } });
    const reads = async (): Promise<EndpointDto[]> => [
      await ok<EndpointDto>(owner, 'GET', `/v1/endpoints/${ep.id}?includeTemplate=true`),
      (await ok<EndpointDto[]>(owner, 'GET', '/v1/endpoints?includeTemplate=true')).find((e) => e.id === ep.id)!,
    ];
    for (const read of await reads()) {
      expect(read.env).toEqual({ SHARED: 'yes', BOTH: 'endpoint' });
      expect(read.template).toMatchObject({ id: shared.id, env: { SHARED: 'yes', BOTH: 'template' } });
    }
    await ok(other, 'PATCH', `/v1/templates/${shared.id}`, { isPublic: false });
    for (const read of await reads()) {
      expect(read.env).toEqual({ BOTH: 'endpoint' });
      expect(read).not.toHaveProperty('template');
    }
    expect((await call(owner, 'DELETE', `/v1/endpoints/${ep.id}`)).statusCode).toBe(204);
  });

  it('answers odd path ids with 404, not 500', async () => {
    for (const id of ['%00', 'a%00b', 'a%20b', '..%2F..', 'x'.repeat(90), 'x'.repeat(300), '%E2%9C%93', "'%3B--"]) {
      expect((await call(owner, 'GET', `/v1/endpoints/${id}`)).statusCode).toBe(404);
      expect((await call(owner, 'PATCH', `/v1/endpoints/${id}`, { name: 'x' })).statusCode).toBe(404);
      expect((await call(owner, 'DELETE', `/v1/endpoints/${id}`)).statusCode).toBe(404);
    }
  });
});
