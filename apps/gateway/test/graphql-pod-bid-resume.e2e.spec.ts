import { seedCatalog } from '@runplane/catalog';
import type { PodDto } from '@runplane/contracts';
import { postGraphql } from './fixtures/graphql/client';
import { CTL_START_SPOT_POD, pyStopPod } from './fixtures/graphql/runpod-texts';
import { bearer, type GatewayHarness, startGateway } from './harness';

describe('GraphQL podBidResume', () => {
  let gw: GatewayHarness;
  let owner: { accountId: string; secret: string };
  let other: { accountId: string; secret: string };

  const rest = (secret: string, method: 'GET' | 'POST', url: string, payload?: object) =>
    gw.inject({ method, url, headers: bearer(secret), ...(payload ? { payload } : {}) });
  /** A stopped RTX 4090 Pod with two GPUs, interruptible or on demand, made through /v1/pods. */
  const stoppedPod = async (name: string, interruptible: boolean) => {
    const created = await rest(owner.secret, 'POST', '/v1/pods', {
      name,
      imageName: 'ubuntu:22.04',
      gpuTypeIds: ['NVIDIA GeForce RTX 4090'],
      gpuCount: 2,
      cloudType: 'SECURE',
      interruptible,
    });
    expect(created.statusCode).toBe(201);
    const pod = created.json<PodDto>();
    const stopped = await postGraphql(gw, { key: owner.secret, query: pyStopPod(pod.id) });
    expect(stopped.body.data?.podStop).toEqual({ id: pod.id, desiredStatus: 'EXITED' });
    return pod;
  };
  const bid = (secret: string, podId: string, bidPerGpu: number) =>
    postGraphql(gw, { key: secret, query: CTL_START_SPOT_POD, variables: { podId, bidPerGpu } });
  const statusOf = async (podId: string) =>
    (await rest(owner.secret, 'GET', `/v1/pods/${podId}`)).json<PodDto>().desiredStatus;
  let spotPrice: number;
  let onDemandPrice: number;

  beforeAll(async () => {
    gw = await startGateway('graphql-pod-bid-resume');
    await seedCatalog(gw.db);
    owner = await gw.accountWithKey();
    other = await gw.accountWithKey();
    const gpu = await gw.db.gpuType.findUniqueOrThrow({ where: { id: 'NVIDIA GeForce RTX 4090' } });
    spotPrice = Number(gpu.secureSpotPrice);
    onDemandPrice = Number(gpu.securePrice);
    expect(spotPrice).toBeGreaterThan(0);
    expect(spotPrice).toBeLessThan(onDemandPrice);
  });

  afterAll(() => gw.close());

  it("resumes an interruptible Pod at its spot price for runpodctl's start pod --bid", async () => {
    const pod = await stoppedPod('spot', true);
    const res = await bid(owner.secret, pod.id, onDemandPrice);
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: {
        data: {
          podBidResume: {
            id: pod.id,
            costPerHr: Math.round(spotPrice * 2 * 100) / 100,
            desiredStatus: 'RUNNING',
            lastStatusChange: expect.any(String),
          },
        },
      },
    });
    const v1 = (await rest(owner.secret, 'GET', `/v1/pods/${pod.id}`)).json<PodDto>();
    expect(v1).toMatchObject({ desiredStatus: 'RUNNING', interruptible: true, costPerHr: pod.costPerHr });
    const v2 = await rest(owner.secret, 'GET', `/v2/pods/${pod.id}`);
    // v2 reports what the scheduler observed; no scheduler runs here, so the resumed Pod waits to be placed.
    expect(v2.json()).toMatchObject({ id: pod.id, status: 'PROVISIONING' });
  });

  it('accepts a bid equal to the spot price per GPU and refuses a lower one, which changes nothing', async () => {
    const pod = await stoppedPod('spot-low', true);
    const low = await bid(owner.secret, pod.id, spotPrice - 0.01);
    expect(low.body).toEqual({
      data: { podBidResume: null },
      errors: [
        {
          message: `bidPerGpu: ${spotPrice - 0.01} is below the Pod's spot price of ${spotPrice} per GPU`,
          path: ['podBidResume'],
        },
      ],
    });
    expect(await statusOf(pod.id)).toBe('EXITED');
    const exact = await bid(owner.secret, pod.id, spotPrice);
    expect(exact.body.data?.podBidResume).toMatchObject({ id: pod.id, desiredStatus: 'RUNNING' });
  });

  it('refuses a bid on an on-demand Pod and a bid that is not positive, changing nothing', async () => {
    const onDemand = await stoppedPod('on-demand', false);
    const spot = await stoppedPod('spot-zero', true);
    const cases: [string, number, string][] = [
      [
        onDemand.id,
        onDemandPrice,
        `podId: Pod ${onDemand.id} is on-demand, not interruptible; resume it with podResume`,
      ],
      [spot.id, 0, 'bidPerGpu: must be greater than 0'],
      [spot.id, -1, 'bidPerGpu: must be greater than 0'],
    ];
    for (const [podId, bidPerGpu, message] of cases) {
      const res = await bid(owner.secret, podId, bidPerGpu);
      expect({ status: res.status, body: res.body }).toEqual({
        status: 200,
        body: { data: { podBidResume: null }, errors: [{ message, path: ['podBidResume'] }] },
      });
    }
    expect(await statusOf(onDemand.id)).toBe('EXITED');
    expect(await statusOf(spot.id)).toBe('EXITED');
  });

  it("answers another account's or an unknown Pod with 'Pod not found', changing nothing", async () => {
    const pod = await stoppedPod('not-theirs', true);
    for (const [secret, podId] of [
      [other.secret, pod.id],
      [owner.secret, 'nosuchpod'],
    ] as const) {
      const res = await bid(secret, podId, onDemandPrice);
      expect({ status: res.status, body: res.body }).toEqual({
        status: 200,
        body: { data: { podBidResume: null }, errors: [{ message: 'Pod not found', path: ['podBidResume'] }] },
      });
    }
    expect(await statusOf(pod.id)).toBe('EXITED');
  });
});
