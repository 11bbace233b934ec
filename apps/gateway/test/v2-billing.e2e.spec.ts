import { newId } from '@runplane/db';
import { type Caller, startServerlessWorld } from './v2-serverless-fixture';

describe('v2 /billing', () => {
  let world: Awaited<ReturnType<typeof startServerlessWorld>>;
  let tenant: Caller;
  let other: Caller;
  const june = (day: number, hour: number) => new Date(Date.UTC(2026, 5, day, hour));
  const window = 'startTime=2026-06-01T00:00:00Z&endTime=2026-06-03T00:00:00Z';

  const record = (caller: Caller, fields: Record<string, unknown>) =>
    world.gw.db.billingRecord.create({ data: { id: newId(), accountId: caller.accountId, ...fields } as never });
  const get = async (caller: Caller, url: string) => (await world.call(caller, 'GET', url)).body;

  beforeAll(async () => {
    world = await startServerlessWorld('v2-billing');
    ({ tenant, other } = world);
    const gpuPod = { kind: 'POD', podId: 'gpupod', gpuTypeId: 'NVIDIA A40' };
    await record(tenant, { ...gpuPod, time: june(1, 5), amount: 0.4, timeBilledMs: 3_600_000 });
    await record(tenant, { ...gpuPod, time: june(1, 6), amount: 0.4, timeBilledMs: 3_600_000 });
    await record(tenant, { ...gpuPod, time: june(2, 1), amount: 0.25 });
    await record(tenant, { kind: 'POD', podId: 'cpupod', time: june(1, 5), amount: 0.06 });
    await record(tenant, { kind: 'POD', podId: 'gpupod', gpuTypeId: 'NVIDIA A40', time: june(3, 0), amount: 9 });
    await record(tenant, {
      kind: 'ENDPOINT',
      endpointId: 'ep1',
      podId: 'w1',
      gpuTypeId: 'NVIDIA L4',
      time: june(1, 7),
      amount: 1.5,
    });
    await record(tenant, { kind: 'ENDPOINT', endpointId: 'ep1', podId: 'w2', time: june(2, 7), amount: 0.5 });
    await record(tenant, { kind: 'NETWORK_VOLUME', networkVolumeId: 'vol1', time: june(2, 3), amount: 0.01 });
    await record(other, { kind: 'POD', podId: 'theirs', gpuTypeId: 'NVIDIA A40', time: june(1, 5), amount: 7 });
  });
  afterAll(() => world.gw.close());

  it('buckets pod charges per Pod, GPU and CPU apart, over a half-open window with totals', async () => {
    const body = await get(tenant, `/v2/billing/pods?${window}`);
    expect(body.records).toEqual([
      {
        startTime: '2026-06-01T00:00:00Z',
        endTime: '2026-06-02T00:00:00Z',
        podId: 'cpupod',
        totalAmount: 0.06,
        gpuAmount: 0,
        cpuAmount: 0.06,
        diskAmount: 0,
      },
      {
        startTime: '2026-06-01T00:00:00Z',
        endTime: '2026-06-02T00:00:00Z',
        podId: 'gpupod',
        totalAmount: 0.8,
        gpuAmount: 0.8,
        cpuAmount: 0,
        diskAmount: 0,
      },
      {
        startTime: '2026-06-02T00:00:00Z',
        endTime: '2026-06-03T00:00:00Z',
        podId: 'gpupod',
        totalAmount: 0.25,
        gpuAmount: 0.25,
        cpuAmount: 0,
        diskAmount: 0,
      },
    ]);
    expect(body.metadata).toEqual({
      query: { startTime: '2026-06-01T00:00:00Z', endTime: '2026-06-03T00:00:00Z', bucketSize: 'day', podId: null },
      recordCount: 3,
      uniquePodCount: 2,
      totals: { totalAmount: 1.11, gpuAmount: 1.05, cpuAmount: 0.06, diskAmount: 0 },
    });
    const one = await get(tenant, `/v2/billing/pods?${window}&podId=cpupod&bucketSize=hour`);
    expect(one.records).toEqual([
      expect.objectContaining({ startTime: '2026-06-01T05:00:00Z', endTime: '2026-06-01T06:00:00Z' }),
    ]);
    expect(one.metadata.query).toMatchObject({ bucketSize: 'hour', podId: 'cpupod' });
  });

  it('reads the same records as v1: the amounts agree', async () => {
    const v1 = await get(
      tenant,
      `/v1/billing/pods?${window.replace('2026-06-03T00:00:00Z', '2026-06-02T23:59:59Z')}&grouping=podId`,
    );
    const v2 = await get(tenant, `/v2/billing/pods?${window}`);
    const sum = (items: { amount?: number; totalAmount?: number }[]) =>
      Math.round(items.reduce((total, item) => total + (item.amount ?? item.totalAmount ?? 0), 0) * 1e6) / 1e6;
    expect(sum(v1)).toBe(sum(v2.records));
  });

  it('snaps the window to buckets; lastN counts back from the current bucket', async () => {
    const snapped = await get(tenant, '/v2/billing/pods?startTime=2026-06-01T05:30:00Z&endTime=2026-06-01T12:00:00Z');
    expect(snapped.metadata.query).toMatchObject({
      startTime: '2026-06-01T00:00:00Z',
      endTime: '2026-06-02T00:00:00Z',
    });
    const month = await get(
      tenant,
      '/v2/billing/pods?startTime=2026-06-01T00:00:00Z&endTime=2026-07-01T00:00:00Z&bucketSize=month',
    );
    expect(month.records.map((r: { podId: string; totalAmount: number }) => [r.podId, r.totalAmount])).toEqual([
      ['cpupod', 0.06],
      ['gpupod', 10.05],
    ]);
    const now = new Date();
    await record(tenant, {
      kind: 'POD',
      podId: 'recent',
      gpuTypeId: 'NVIDIA A40',
      time: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), now.getUTCHours())),
      amount: 0.5,
    });
    const recent = await get(tenant, '/v2/billing/pods?lastN=2&bucketSize=hour');
    expect(recent.records).toEqual([expect.objectContaining({ podId: 'recent', totalAmount: 0.5 })]);
    expect(Date.parse(recent.metadata.query.endTime) - Date.parse(recent.metadata.query.startTime)).toBe(2 * 3_600_000);
  });

  it('bills serverless endpoints, network volumes, and every family in the aggregate', async () => {
    const serverless = await get(tenant, `/v2/billing/serverless?${window}&serverlessId=ep1`);
    expect(serverless.records).toEqual([
      expect.objectContaining({ serverlessId: 'ep1', totalAmount: 1.5, gpuAmount: 1.5, cpuAmount: 0, feeAmount: 0 }),
      expect.objectContaining({ serverlessId: 'ep1', totalAmount: 0.5, gpuAmount: 0, cpuAmount: 0.5 }),
    ]);
    expect(serverless.metadata).toMatchObject({ uniqueServerlessCount: 1, query: { serverlessId: 'ep1' } });
    const volumes = await get(tenant, `/v2/billing/network-volumes?${window}`);
    expect(volumes.records).toEqual([
      {
        startTime: '2026-06-02T00:00:00Z',
        endTime: '2026-06-03T00:00:00Z',
        networkVolumeId: 'vol1',
        totalAmount: 0.01,
        standardAmount: 0.01,
        highPerformanceAmount: 0,
      },
    ]);
    const all = await get(tenant, `/v2/billing?${window}`);
    expect(all.records).toHaveLength(2);
    expect(all.records[0]).toMatchObject({
      totalAmount: 2.36,
      podGpuAmount: 0.8,
      podCpuAmount: 0.06,
      serverlessGpuAmount: 1.5,
    });
    expect(all.records[1]).toMatchObject({
      totalAmount: 0.76,
      podGpuAmount: 0.25,
      serverlessCpuAmount: 0.5,
      storageStandardAmount: 0.01,
    });
    expect(all.metadata).toMatchObject({
      recordCount: 2,
      totals: { totalAmount: 3.12, clusterGpuAmount: 0, endpointAmount: 0 },
    });
    expect(await get(tenant, `/v2/billing/endpoints?${window}`)).toEqual({
      records: [],
      metadata: {
        query: { startTime: '2026-06-01T00:00:00Z', endTime: '2026-06-03T00:00:00Z', bucketSize: 'day' },
        recordCount: 0,
        totals: { totalAmount: 0 },
      },
    });
  });

  it('answers bad queries, clusters and other tenants as problem+json or nothing', async () => {
    await world.expectProblem(world.call(tenant, 'GET', `/v2/billing/pods?${window}&lastN=3`), 400);
    await world.expectProblem(
      world.call(tenant, 'GET', '/v2/billing?startTime=2026-06-03T00:00:00Z&endTime=2026-06-01T00:00:00Z'),
      400,
    );
    await world.expectProblem(world.call(tenant, 'GET', '/v2/billing/serverless?startTime=yesterday'), 422);
    await world.expectProblem(world.call(tenant, 'GET', '/v2/billing/network-volumes?bucketSize=minute'), 422);
    await world.expectProblem(world.call(tenant, 'GET', '/v2/billing/pods?lastN=0'), 422);
    await world.expectProblem(world.call(tenant, 'GET', '/v2/billing/clusters'), 501);
    await world.expectProblem(world.call(tenant, 'POST', '/v2/billing/pods'), 405);
    for (const path of ['/v2/billing', '/v2/billing/pods', '/v2/billing/serverless', '/v2/billing/network-volumes']) {
      const body = await get(other, `${path}?${window}`);
      expect(JSON.stringify(body.records)).not.toMatch(/gpupod|ep1|vol1/);
    }
    expect((await get(other, `/v2/billing/pods?${window}`)).metadata.totals.totalAmount).toBe(7);
    expect((await get(other, `/v2/billing/pods?${window}&podId=gpupod`)).records).toEqual([]);
  });
});
