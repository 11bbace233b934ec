import { seedCatalog } from '@runplane/catalog';
import { type BillingRecordKind, newId } from '@runplane/db';
import { bearer, type Caller, type GatewayHarness, startGateway } from './harness';

type Row = {
  time: string;
  podId?: string;
  endpointId?: string;
  gpuTypeId?: string;
  networkVolumeId?: string;
  templateId?: string;
  imageName?: string;
  dataCenterId?: string;
  amount?: number;
  timeBilledMs?: number;
  diskSpaceBilledGb?: number;
  highPerformanceStorageAmount?: number;
  highPerformanceStorageDiskSpaceBilledGb?: number;
};

const HOUR = 3_600_000;
const dims = (templateId: string, imageName: string, dataCenterId: string) => ({ templateId, imageName, dataCenterId });
const pod = (time: string, podId: string, gpuTypeId: string) => ({ time, podId, gpuTypeId });
const worker = (time: string, endpointId: string, podId: string, gpuTypeId: string) => ({
  time,
  endpointId,
  podId,
  gpuTypeId,
});
const L4 = 'NVIDIA L4';
const A40 = 'NVIDIA A40';

describe('v1 /billing', () => {
  let gw: GatewayHarness;
  let owner: Caller;
  let other: Caller;

  const get = (url: string, caller = owner) => gw.inject({ method: 'GET', url, headers: bearer(caller.secret) });
  async function records(url: string, caller = owner): Promise<unknown> {
    const res = await get(url, caller);
    expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
    return res.json();
  }
  async function insert(accountId: string, kind: BillingRecordKind, rows: Row[]): Promise<void> {
    await gw.db.billingRecord.createMany({
      data: rows.map(({ time, timeBilledMs, ...row }) => ({
        id: newId(),
        accountId,
        kind,
        time: new Date(time),
        timeBilledMs: BigInt(timeBilledMs ?? 0),
        ...row,
      })),
    });
  }

  beforeAll(async () => {
    gw = await startGateway('billing');
    await seedCatalog(gw.db);
    owner = await gw.accountWithKey('ALL');
    other = await gw.accountWithKey('ALL');
    await insert(owner.accountId, 'POD', [
      { ...pod('2023-12-31T23:00:00Z', 'pod-2', A40), amount: 0.1, timeBilledMs: HOUR, diskSpaceBilledGb: 20 },
      { ...pod('2024-01-01T00:00:00Z', 'pod-1', L4), amount: 1.5, timeBilledMs: HOUR, diskSpaceBilledGb: 50 },
      { ...pod('2024-01-01T01:00:00Z', 'pod-1', L4), amount: 1.5, timeBilledMs: HOUR, diskSpaceBilledGb: 50 },
      { ...pod('2024-01-01T00:00:00Z', 'pod-2', A40), amount: 0.4, timeBilledMs: HOUR, diskSpaceBilledGb: 20 },
      { ...pod('2024-01-01T03:00:00Z', 'pod-3', L4), amount: 1, timeBilledMs: HOUR, diskSpaceBilledGb: 10 },
      { ...pod('2024-01-02T05:00:00Z', 'pod-1', L4), amount: 0.5, timeBilledMs: HOUR / 2, diskSpaceBilledGb: 60 },
    ]);
    await insert(other.accountId, 'POD', [
      { ...pod('2024-01-01T00:00:00Z', 'their-pod', L4), amount: 999, timeBilledMs: HOUR, diskSpaceBilledGb: 1 },
    ]);
  });
  afterAll(() => gw.close());

  describe('/billing/pods', () => {
    it('sums by day and GPU type by default, oldest first, only for the caller', async () => {
      expect(await records('/v1/billing/pods')).toEqual([
        { time: '2023-12-31T00:00:00Z', gpuTypeId: A40, amount: 0.1, timeBilledMs: HOUR, diskSpaceBilledGb: 20 },
        { time: '2024-01-01T00:00:00Z', gpuTypeId: A40, amount: 0.4, timeBilledMs: HOUR, diskSpaceBilledGb: 20 },
        // pod-1 counts its 50 GB once for the day, pod-3 adds its 10 GB.
        { time: '2024-01-01T00:00:00Z', gpuTypeId: L4, amount: 4, timeBilledMs: 3 * HOUR, diskSpaceBilledGb: 60 },
        { time: '2024-01-02T00:00:00Z', gpuTypeId: L4, amount: 0.5, timeBilledMs: HOUR / 2, diskSpaceBilledGb: 60 },
      ]);
      expect(await records('/v1/billing/pods', other)).toEqual([
        { time: '2024-01-01T00:00:00Z', gpuTypeId: L4, amount: 999, timeBilledMs: HOUR, diskSpaceBilledGb: 1 },
      ]);
    });

    it('groups by pod in hourly buckets, filtered by GPU type', async () => {
      expect(
        await records(`/v1/billing/pods?grouping=podId&bucketSize=hour&gpuTypeId=${encodeURIComponent(L4)}`),
      ).toEqual([
        { time: '2024-01-01T00:00:00Z', podId: 'pod-1', amount: 1.5, timeBilledMs: HOUR, diskSpaceBilledGb: 50 },
        { time: '2024-01-01T01:00:00Z', podId: 'pod-1', amount: 1.5, timeBilledMs: HOUR, diskSpaceBilledGb: 50 },
        { time: '2024-01-01T03:00:00Z', podId: 'pod-3', amount: 1, timeBilledMs: HOUR, diskSpaceBilledGb: 10 },
        { time: '2024-01-02T05:00:00Z', podId: 'pod-1', amount: 0.5, timeBilledMs: HOUR / 2, diskSpaceBilledGb: 60 },
      ]);
    });

    it('buckets by week (Monday), month and year', async () => {
      expect(await records('/v1/billing/pods?bucketSize=week')).toEqual([
        { time: '2023-12-25T00:00:00Z', gpuTypeId: A40, amount: 0.1, timeBilledMs: HOUR, diskSpaceBilledGb: 20 },
        { time: '2024-01-01T00:00:00Z', gpuTypeId: A40, amount: 0.4, timeBilledMs: HOUR, diskSpaceBilledGb: 20 },
        { time: '2024-01-01T00:00:00Z', gpuTypeId: L4, amount: 4.5, timeBilledMs: 3.5 * HOUR, diskSpaceBilledGb: 70 },
      ]);
      const monthly = await records('/v1/billing/pods?bucketSize=month&grouping=podId');
      expect(monthly).toEqual([
        { time: '2023-12-01T00:00:00Z', podId: 'pod-2', amount: 0.1, timeBilledMs: HOUR, diskSpaceBilledGb: 20 },
        { time: '2024-01-01T00:00:00Z', podId: 'pod-1', amount: 3.5, timeBilledMs: 2.5 * HOUR, diskSpaceBilledGb: 60 },
        { time: '2024-01-01T00:00:00Z', podId: 'pod-2', amount: 0.4, timeBilledMs: HOUR, diskSpaceBilledGb: 20 },
        { time: '2024-01-01T00:00:00Z', podId: 'pod-3', amount: 1, timeBilledMs: HOUR, diskSpaceBilledGb: 10 },
      ]);
      const yearly = (await records('/v1/billing/pods?bucketSize=year')) as Array<{ time: string; amount: number }>;
      expect(yearly.map((r) => [r.time, r.amount])).toEqual([
        ['2023-01-01T00:00:00Z', 0.1],
        ['2024-01-01T00:00:00Z', 0.4],
        ['2024-01-01T00:00:00Z', 4.5],
      ]);
    });

    it('filters by time window (inclusive, any offset) and pod', async () => {
      const window = '/v1/billing/pods?grouping=podId&startTime=2024-01-01T01:00:00Z&endTime=2024-01-01T23:59:59Z';
      expect(await records(window)).toEqual([
        { time: '2024-01-01T00:00:00Z', podId: 'pod-1', amount: 1.5, timeBilledMs: HOUR, diskSpaceBilledGb: 50 },
        { time: '2024-01-01T00:00:00Z', podId: 'pod-3', amount: 1, timeBilledMs: HOUR, diskSpaceBilledGb: 10 },
      ]);
      // 2024-01-01T05:00+02:00 is 03:00Z: only pod-3's hour and later.
      const offset = `/v1/billing/pods?bucketSize=hour&startTime=${encodeURIComponent('2024-01-01T05:00:00+02:00')}&endTime=2024-01-01T03:00:00Z`;
      expect(await records(offset)).toEqual([
        { time: '2024-01-01T03:00:00Z', gpuTypeId: L4, amount: 1, timeBilledMs: HOUR, diskSpaceBilledGb: 10 },
      ]);
      expect(await records('/v1/billing/pods?podId=pod-2&bucketSize=year&grouping=podId')).toEqual([
        { time: '2023-01-01T00:00:00Z', podId: 'pod-2', amount: 0.1, timeBilledMs: HOUR, diskSpaceBilledGb: 20 },
        { time: '2024-01-01T00:00:00Z', podId: 'pod-2', amount: 0.4, timeBilledMs: HOUR, diskSpaceBilledGb: 20 },
      ]);
      expect(await records('/v1/billing/pods?podId=their-pod')).toEqual([]);
      expect(await records('/v1/billing/pods?startTime=2030-01-01T00:00:00Z')).toEqual([]);
    });
  });

  describe('/billing/endpoints', () => {
    beforeAll(async () => {
      // Records carry template, image and data center themselves: no endpoint, template or Pod rows needed.
      const a = owner.accountId;
      await insert(a, 'ENDPOINT', [
        {
          ...worker('2024-02-01T00:00:00Z', 'ep-one', 'w-1', L4),
          ...dims('tpl-one', 'img:1', 'EU-RO-1'),
          ...{ amount: 2, timeBilledMs: HOUR, diskSpaceBilledGb: 5 },
        },
        {
          ...worker('2024-02-01T01:00:00Z', 'ep-one', 'w-2', A40),
          ...dims('tpl-one', 'img:1', 'US-TX-3'),
          ...{ amount: 1, timeBilledMs: HOUR / 2, diskSpaceBilledGb: 5 },
        },
        {
          ...worker('2024-02-01T00:00:00Z', 'ep-two', 'w-3', L4),
          ...dims('tpl-two', 'img:2', 'EU-RO-1'),
          ...{ amount: 3, timeBilledMs: HOUR, diskSpaceBilledGb: 7 },
        },
      ]);
      await insert(other.accountId, 'ENDPOINT', [
        { ...worker('2024-02-01T00:00:00Z', 'ep-one', 'w-1', L4), amount: 500, timeBilledMs: HOUR },
      ]);
    });

    const day = '2024-02-01T00:00:00Z';
    const amounts = async (query: string) =>
      ((await records(`/v1/billing/endpoints${query}`)) as Array<Record<string, unknown>>).map(
        ({ time: _t, timeBilledMs: _m, diskSpaceBilledGb: _d, ...rest }) => rest,
      );

    it('groups by endpoint by default, by GPU type or by worker Pod', async () => {
      expect(await records('/v1/billing/endpoints')).toEqual([
        { time: day, endpointId: 'ep-one', amount: 3, timeBilledMs: 1.5 * HOUR, diskSpaceBilledGb: 10 },
        { time: day, endpointId: 'ep-two', amount: 3, timeBilledMs: HOUR, diskSpaceBilledGb: 7 },
      ]);
      expect(await records('/v1/billing/endpoints?grouping=gpuTypeId')).toEqual([
        { time: day, gpuTypeId: A40, amount: 1, timeBilledMs: HOUR / 2, diskSpaceBilledGb: 5 },
        { time: day, gpuTypeId: L4, amount: 5, timeBilledMs: 2 * HOUR, diskSpaceBilledGb: 12 },
      ]);
      expect(await amounts('?grouping=podId')).toEqual([
        { podId: 'w-1', amount: 2 },
        { podId: 'w-2', amount: 1 },
        { podId: 'w-3', amount: 3 },
      ]);
      expect(await records('/v1/billing/endpoints', other)).toEqual([
        { time: day, endpointId: 'ep-one', amount: 500, timeBilledMs: HOUR, diskSpaceBilledGb: 0 },
      ]);
    });

    it('filters by endpoint, repeated GPU types, template, image and data centers', async () => {
      expect(await amounts('?endpointId=ep-two')).toEqual([{ endpointId: 'ep-two', amount: 3 }]);
      expect(await amounts(`?gpuTypeId=${encodeURIComponent(A40)}`)).toEqual([{ endpointId: 'ep-one', amount: 1 }]);
      expect(
        await amounts(`?gpuTypeId=${encodeURIComponent(A40)}&gpuTypeId=${encodeURIComponent(L4)}&grouping=gpuTypeId`),
      ).toEqual([
        { gpuTypeId: A40, amount: 1 },
        { gpuTypeId: L4, amount: 5 },
      ]);
      expect(await amounts('?templateId=tpl-two')).toEqual([{ endpointId: 'ep-two', amount: 3 }]);
      expect(await amounts(`?imageName=${encodeURIComponent('img:1')}`)).toEqual([{ endpointId: 'ep-one', amount: 3 }]);
      expect(await amounts('?dataCenterId=US-TX-3')).toEqual([{ endpointId: 'ep-one', amount: 1 }]);
      expect(await amounts('?dataCenterId=EU-RO-1&grouping=podId')).toEqual([
        { podId: 'w-1', amount: 2 },
        { podId: 'w-3', amount: 3 },
      ]);
      expect(
        await amounts('?dataCenterId=EU-RO-1&dataCenterId=US-TX-3&endpointId=ep-one&bucketSize=hour&grouping=podId'),
      ).toEqual([
        { podId: 'w-1', amount: 2 },
        { podId: 'w-2', amount: 1 },
      ]);
      expect(await amounts('?templateId=tpl-one&imageName=img%3A2')).toEqual([]);
    });
  });

  describe('/billing/networkvolumes', () => {
    beforeAll(async () => {
      await insert(owner.accountId, 'NETWORK_VOLUME', [
        { time: '2024-03-01T00:00:00Z', networkVolumeId: 'vol-1', amount: 0.07, diskSpaceBilledGb: 100 },
        { time: '2024-03-01T01:00:00Z', networkVolumeId: 'vol-1', amount: 0.07, diskSpaceBilledGb: 100 },
        {
          time: '2024-03-01T00:00:00Z',
          networkVolumeId: 'vol-2',
          highPerformanceStorageAmount: 0.1,
          highPerformanceStorageDiskSpaceBilledGb: 50,
        },
        { time: '2024-03-02T00:00:00Z', networkVolumeId: 'vol-1', amount: 0.07, diskSpaceBilledGb: 150 },
      ]);
      await insert(other.accountId, 'NETWORK_VOLUME', [
        { time: '2024-03-01T00:00:00Z', networkVolumeId: 'theirs', amount: 42, diskSpaceBilledGb: 4000 },
      ]);
    });

    it('sums the account volumes per bucket, standard and high-performance storage apart', async () => {
      expect(await records('/v1/billing/networkvolumes')).toEqual([
        {
          time: '2024-03-01T00:00:00Z',
          amount: 0.14,
          diskSpaceBilledGb: 100,
          highPerformanceStorageAmount: 0.1,
          highPerformanceStorageDiskSpaceBilledGb: 50,
        },
        {
          time: '2024-03-02T00:00:00Z',
          amount: 0.07,
          diskSpaceBilledGb: 150,
          highPerformanceStorageAmount: 0,
          highPerformanceStorageDiskSpaceBilledGb: 0,
        },
      ]);
      expect(await records('/v1/billing/networkvolumes?bucketSize=month&startTime=2024-03-01T00:30:00Z')).toEqual([
        {
          time: '2024-03-01T00:00:00Z',
          amount: 0.14,
          diskSpaceBilledGb: 150,
          highPerformanceStorageAmount: 0,
          highPerformanceStorageDiskSpaceBilledGb: 0,
        },
      ]);
      expect(await records('/v1/billing/networkvolumes?endTime=2024-02-01T00:00:00Z')).toEqual([]);
      expect(await records('/v1/billing/networkvolumes', other)).toEqual([
        {
          time: '2024-03-01T00:00:00Z',
          amount: 42,
          diskSpaceBilledGb: 4000,
          highPerformanceStorageAmount: 0,
          highPerformanceStorageDiskSpaceBilledGb: 0,
        },
      ]);
    });
  });

  it('refuses bad queries with a 400 naming the parameter', async () => {
    const cases: Array<[string, RegExp]> = [
      ['/v1/billing/pods?bucketSize=minute', /^bucketSize: /],
      ['/v1/billing/pods?grouping=endpointId', /^grouping: /],
      ['/v1/billing/pods?startTime=yesterday', /^startTime: must be an ISO 8601 date-time/],
      ['/v1/billing/pods?endTime=2024-13-01T00:00:00Z', /^endTime: /],
      [
        '/v1/billing/pods?startTime=2024-02-01T00:00:00Z&endTime=2024-01-01T00:00:00Z',
        /^startTime: must not be after endTime$/,
      ],
      ['/v1/billing/pods?gpuTypeId=NVIDIA%20GTX%20480', /^gpuTypeId: unknown GPU type "NVIDIA GTX 480"$/],
      ['/v1/billing/pods?podId=a%00b', /^podId: must not contain NUL characters$/],
      ['/v1/billing/pods?podId=', /^podId: /],
      ['/v1/billing/endpoints?grouping=templateId', /^grouping: /],
      [
        '/v1/billing/endpoints?dataCenterId=EU-RO-1&dataCenterId=MOON-1',
        /^dataCenterId\.1: unknown data center "MOON-1"$/,
      ],
      ['/v1/billing/endpoints?gpuTypeId=NVIDIA%20L4&gpuTypeId=TPU', /^gpuTypeId\.1: unknown GPU type "TPU"$/],
      ['/v1/billing/endpoints?imageName=' + 'x'.repeat(600), /^imageName: /],
      ['/v1/billing/endpoints?endTime=2024-01-01', /^endTime: /],
      ['/v1/billing/networkvolumes?bucketSize=DAY', /^bucketSize: /],
      [
        '/v1/billing/networkvolumes?startTime=2024-03-02T00:00:00Z&endTime=2024-03-01T00:00:00Z',
        /^startTime: must not be after endTime$/,
      ],
    ];
    for (const [url, expected] of cases) {
      const res = await get(url);
      expect({ url, status: res.statusCode, message: (res.json() as { message: string }).message }).toEqual({
        url,
        status: 400,
        message: expect.stringMatching(expected),
      });
    }
  });

  it('requires an API key', async () => {
    for (const path of ['pods', 'endpoints', 'networkvolumes']) {
      expect((await gw.inject({ method: 'GET', url: `/v1/billing/${path}` })).statusCode).toBe(401);
    }
  });
});
