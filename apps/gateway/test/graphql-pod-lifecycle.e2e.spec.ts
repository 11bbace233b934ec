import { seedCatalog } from '@runplane/catalog';
import type { PodDto } from '@runplane/contracts';
import { postGraphql } from './fixtures/graphql/client';
import { pyResumePod, pyStopPod, pyTerminatePod } from './fixtures/graphql/runpod-texts';
import { bearer, type GatewayHarness, startGateway } from './harness';

describe('GraphQL podStop, podResume and podTerminate', () => {
  let gw: GatewayHarness;
  let owner: { accountId: string; secret: string };
  let other: { accountId: string; secret: string };
  let pod: PodDto;

  const rest = (secret: string, method: 'GET' | 'POST', url: string, payload?: object) =>
    gw.inject({ method, url, headers: bearer(secret), ...(payload ? { payload } : {}) });

  beforeAll(async () => {
    gw = await startGateway('graphql-pod-lifecycle');
    await seedCatalog(gw.db);
    owner = await gw.accountWithKey();
    other = await gw.accountWithKey();
    const created = await rest(owner.secret, 'POST', '/v1/pods', {
      name: 'gql-life',
      imageName: 'ubuntu:22.04',
      gpuTypeIds: ['NVIDIA GeForce RTX 4090'],
      env: { A: '1' },
    });
    expect(created.statusCode).toBe(201);
    pod = created.json<PodDto>();
  });

  afterAll(() => gw.close());

  it("stops and resumes the Pod for runpod-python's stop_pod and resume_pod", async () => {
    const stopped = await postGraphql(gw, { key: owner.secret, query: pyStopPod(pod.id) });
    expect(stopped.body).toEqual({ data: { podStop: { id: pod.id, desiredStatus: 'EXITED' } } });
    expect((await rest(owner.secret, 'GET', `/v1/pods/${pod.id}`)).json<PodDto>().desiredStatus).toBe('EXITED');

    const resumed = await postGraphql(gw, { key: owner.secret, query: pyResumePod(pod.id) });
    expect(resumed.body).toEqual({
      data: {
        podResume: {
          id: pod.id,
          desiredStatus: 'RUNNING',
          imageName: 'ubuntu:22.04',
          env: ['A=1'],
          machineId: pod.machineId,
          machine: { podHostId: pod.machineId === null ? null : pod.id },
        },
      },
    });
  });

  it("refuses another tenant's or an unknown Pod with HTTP 200 and the REST message, changing nothing", async () => {
    for (const [query, field] of [
      [pyStopPod(pod.id), 'podStop'],
      [pyTerminatePod(pod.id), 'podTerminate'],
      [pyResumePod('nosuchpod'), 'podResume'],
    ] as const) {
      const res = await postGraphql(gw, { key: other.secret, query });
      expect({ status: res.status, body: res.body }).toEqual({
        status: 200,
        body: { data: { [field]: null }, errors: [{ message: 'Pod not found', path: [field] }] },
      });
    }
    expect((await rest(owner.secret, 'GET', `/v1/pods/${pod.id}`)).json<PodDto>().desiredStatus).toBe('RUNNING');
  });

  it("terminates the Pod for runpod-python's terminate_pod", async () => {
    const res = await postGraphql(gw, { key: owner.secret, query: pyTerminatePod(pod.id) });
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { data: { podTerminate: null } } });
    expect((await rest(owner.secret, 'GET', `/v1/pods/${pod.id}`)).statusCode).toBe(404);
  });
});
