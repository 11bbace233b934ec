import { DEFAULT_STORAGE_PRICES, seedCatalog } from '@runplane/catalog';
import { startUsageConsumer, UsageAggregator, type UsageFailure } from '@runplane/billing';
import type { PodUsageEvent, UsageEvent, VolumeUsageEvent, WorkerUsageEvent } from '@runplane/contracts';
import {
  createQueue,
  createRedis,
  type Redis,
  type TypedQueue,
  type TypedWorker,
  USAGE_QUEUE,
  usageCatalog,
} from '@runplane/queue';
import { cleanupRedisPrefix, FakeClock, pollUntil, testRedisPrefix } from '@runplane/testing';
import { bearer, type GatewayHarness, startGateway } from './harness';

/*
 * A scripted day of usage (2024-05-06, a Monday, all times UTC) goes through the real `usage` queue into the
 * aggregator and Postgres, and is read back through the gateway's /v1/billing routes. Prices: the catalog's
 * default storage prices (Pod disk $0.10/GB-month running, $0.20 stopped; network volume $0.07/GB-month),
 * a month being 730 hours.
 *
 * Pod p1 (L4, $0.60/h, 50 GB container disk + 23 GB volume = 73 GB, so disk costs 73 x 0.10 / 730 = $0.01/h
 * running and $0.02/h stopped): runs 10:00-11:30, stopped 11:30-12:00, runs 12:00-12:20, terminated.
 *   10:00 hour: 60 min x 0.60/h + 60 min x 0.01/h                    = 0.60 + 0.01            = 0.61
 *   11:00 hour: 30 min x 0.60/h + 30 min x 0.01/h + 30 min x 0.02/h  = 0.30 + 0.005 + 0.01    = 0.315
 *   12:00 hour: 20 min x 0.60/h + 20 min x 0.01/h                    = 0.20 + 0.003333...     = 0.203333
 *   day:        110 min x 0.60/h + 110 min x 0.01/h + 30 min x 0.02/h = 1.10 + 0.018333 + 0.01 = 1.128333 ($1.13)
 * Worker w1 of endpoint e1 (A40, $1.80/h = $0.0005/s) lives 10:15:00-10:15:37: 37 s x 0.0005 = 0.0185 ($0.02).
 * Worker w2 of endpoint e2 (L4, $0.72/h = $0.0002/s) lives 13:59:10-14:00:50: 50 s in each hour, 50 x 0.0002 = 0.01
 *   per hour, 0.02 for the day.
 * Network volume v1: 10 GB from 00:00, grown to 50 GB at 12:00, billed up to the clock's now (next midnight):
 *   each hour at 10 GB: 10 x 0.07 / 730 = 0.000958904 -> 0.000959; at 50 GB: 50 x 0.07 / 730 = 0.004794521 -> 0.004795
 *   day: (12 x 10 + 12 x 50) x 0.07 / 730 = 50.4 / 730 = 0.069041096 -> 0.069041 ($0.07)
 */

const L4 = 'NVIDIA L4';
const A40 = 'NVIDIA A40';
const DAY = '2024-05-06';
const at = (time: string) => `${DAY}T${time}Z`;
// BullMQ job ids (= event ids) may not contain ":".
const id = (resource: string, type: string, time: string) => `${resource}-${type}-${time.replace(/:/g, '')}`;

describe('billing history through the usage queue, the aggregator and /v1/billing', () => {
  let gw: GatewayHarness;
  let secret: string;
  let accountId: string;
  let redis: Redis;
  let queue: TypedQueue<typeof usageCatalog, typeof USAGE_QUEUE>;
  let consumer: TypedWorker;
  let aggregator: UsageAggregator;
  const clock = new FakeClock(Date.parse('2024-05-07T00:00:00Z'));
  const prefix = testRedisPrefix('billing-history');
  const failures: UsageFailure[] = [];
  const outcomes: unknown[] = [];
  const events: UsageEvent[] = [];

  const compute = { cloudType: 'SECURE' as const, interruptible: false, cpuFlavorId: null, gpuCount: 1 };
  const pod = (type: PodUsageEvent['type'], time: string): PodUsageEvent => ({
    eventId: id('p1', type, time),
    accountId,
    occurredAt: at(time),
    type,
    podId: 'p1',
    ...compute,
    gpuTypeId: L4,
    dataCenterId: 'EU-RO-1',
    costPerHr: '0.60',
    containerDiskInGb: 50,
    volumeInGb: 23,
    templateId: null,
    imageName: 'img:pod',
  });
  type WorkerDims = Pick<
    WorkerUsageEvent,
    'workerId' | 'endpointId' | 'gpuTypeId' | 'costPerHr' | 'templateId' | 'imageName' | 'dataCenterId'
  >;
  const worker =
    (dims: WorkerDims) =>
    (type: WorkerUsageEvent['type'], time: string): WorkerUsageEvent => ({
      eventId: `${dims.workerId}-${type}`,
      accountId,
      occurredAt: at(time),
      type,
      ...compute,
      ...dims,
    });
  const w1 = worker({
    ...{ workerId: 'w1', endpointId: 'e1', gpuTypeId: A40, costPerHr: '1.80' },
    ...{ templateId: 'tpl-1', imageName: 'img:1', dataCenterId: 'EU-RO-1' },
  });
  const w2 = worker({
    ...{ workerId: 'w2', endpointId: 'e2', gpuTypeId: L4, costPerHr: '0.72' },
    ...{ templateId: 'tpl-2', imageName: 'img:2', dataCenterId: 'US-TX-3' },
  });
  const volume = (type: VolumeUsageEvent['type'], time: string, sizeGb: number): VolumeUsageEvent => ({
    eventId: id('v1', type, time),
    accountId,
    occurredAt: at(time),
    type,
    networkVolumeId: 'v1',
    dataCenterId: 'EU-RO-1',
    sizeGb,
  });

  async function publish(list: UsageEvent[], jobSuffix = ''): Promise<void> {
    for (const event of list) await queue.add('usage.record', event, { jobId: `${event.eventId}${jobSuffix}` });
    await pollUntil(async () => (await queue.pendingCount()) === 0, {
      timeoutMs: 30_000,
      description: 'usage queue drained',
    });
  }

  async function read(url: string): Promise<unknown> {
    const res = await gw.inject({ method: 'GET', url, headers: bearer(secret) });
    expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
    return res.json();
  }

  const snapshot = async () => ({
    records: await gw.db.billingRecord.findMany({ orderBy: { id: 'asc' } }),
    intervals: await gw.db.usageInterval.findMany({ orderBy: { id: 'asc' } }),
  });

  beforeAll(async () => {
    gw = await startGateway('billing-history');
    await seedCatalog(gw.db);
    ({ accountId, secret } = await gw.accountWithKey('ALL'));
    redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    queue = createQueue(usageCatalog, USAGE_QUEUE, { redis, prefix });
    aggregator = new UsageAggregator(gw.db, { prices: DEFAULT_STORAGE_PRICES, clock });
    consumer = startUsageConsumer(aggregator, {
      redis,
      prefix,
      concurrency: 4,
      onFailure: (failure) => failures.push(failure),
    });
    consumer.worker.on('completed', (_job, outcome: unknown) => outcomes.push(outcome));
    events.push(
      volume('volume.created', '00:00:00', 10),
      pod('pod.started', '10:00:00'),
      w1('worker.started', '10:15:00'),
      w1('worker.stopped', '10:15:37'),
      pod('pod.stopped', '11:30:00'),
      pod('pod.started', '12:00:00'),
      volume('volume.resized', '12:00:00', 50),
      pod('pod.terminated', '12:20:00'),
      w2('worker.started', '13:59:10'),
      w2('worker.stopped', '14:00:50'),
    );
    await publish(events);
  });

  afterAll(async () => {
    await consumer.close();
    await queue.close();
    await cleanupRedisPrefix(redis, prefix);
    await redis.quit();
    await gw.close();
  });

  const BUCKETS = {
    hour: null,
    day: `${DAY}T00:00:00Z`,
    week: `${DAY}T00:00:00Z`,
    month: '2024-05-01T00:00:00Z',
    year: '2024-01-01T00:00:00Z',
  } as const;
  const COARSE = ['day', 'week', 'month', 'year'] as const;

  it('applies every event', () => {
    expect(failures).toEqual([]);
    expect(outcomes).toEqual(Array(events.length).fill('recorded'));
  });

  it('bills the Pod per second at its rate plus running and stopped disk, for every bucket and grouping', async () => {
    const hourly = [
      { time: at('10:00:00'), amount: 0.61, timeBilledMs: 3_600_000, diskSpaceBilledGb: 73 },
      { time: at('11:00:00'), amount: 0.315, timeBilledMs: 1_800_000, diskSpaceBilledGb: 73 },
      { time: at('12:00:00'), amount: 0.203333, timeBilledMs: 1_200_000, diskSpaceBilledGb: 73 },
    ];
    for (const grouping of ['podId', 'gpuTypeId'] as const) {
      const key = grouping === 'podId' ? { podId: 'p1' } : { gpuTypeId: L4 };
      expect(await read(`/v1/billing/pods?bucketSize=hour&grouping=${grouping}`)).toEqual(
        hourly.map((row) => ({ ...row, ...key })),
      );
      for (const bucketSize of COARSE) {
        expect(await read(`/v1/billing/pods?bucketSize=${bucketSize}&grouping=${grouping}`)).toEqual([
          { time: BUCKETS[bucketSize], amount: 1.128333, timeBilledMs: 6_600_000, diskSpaceBilledGb: 73, ...key },
        ]);
      }
    }
    const [day] = (await read('/v1/billing/pods')) as Array<{ amount: number }>;
    expect(day?.amount.toFixed(2)).toBe('1.13');
  });

  it('bills workers per second of life at their GPU price, for every bucket and grouping', async () => {
    const keys = {
      endpointId: [{ endpointId: 'e1' }, { endpointId: 'e2' }],
      podId: [{ podId: 'w1' }, { podId: 'w2' }],
      gpuTypeId: [{ gpuTypeId: A40 }, { gpuTypeId: L4 }],
    } as const;
    for (const grouping of ['endpointId', 'podId', 'gpuTypeId'] as const) {
      const [first, second] = keys[grouping];
      expect(await read(`/v1/billing/endpoints?bucketSize=hour&grouping=${grouping}`)).toEqual([
        { time: at('10:00:00'), amount: 0.0185, timeBilledMs: 37_000, diskSpaceBilledGb: 0, ...first },
        { time: at('13:00:00'), amount: 0.01, timeBilledMs: 50_000, diskSpaceBilledGb: 0, ...second },
        { time: at('14:00:00'), amount: 0.01, timeBilledMs: 50_000, diskSpaceBilledGb: 0, ...second },
      ]);
      for (const bucketSize of COARSE) {
        expect(await read(`/v1/billing/endpoints?bucketSize=${bucketSize}&grouping=${grouping}`)).toEqual([
          { time: BUCKETS[bucketSize], amount: 0.0185, timeBilledMs: 37_000, diskSpaceBilledGb: 0, ...first },
          { time: BUCKETS[bucketSize], amount: 0.02, timeBilledMs: 100_000, diskSpaceBilledGb: 0, ...second },
        ]);
      }
    }
  });

  it('filters endpoint records by the template, image and data center the workers ran with', async () => {
    const amounts = async (query: string) =>
      ((await read(`/v1/billing/endpoints?${query}`)) as Array<{ endpointId: string; amount: number }>).map((r) => [
        r.endpointId,
        r.amount,
      ]);
    expect(await amounts('templateId=tpl-2')).toEqual([['e2', 0.02]]);
    expect(await amounts(`imageName=${encodeURIComponent('img:1')}`)).toEqual([['e1', 0.0185]]);
    expect(await amounts('dataCenterId=US-TX-3')).toEqual([['e2', 0.02]]);
    expect(await amounts(`gpuTypeId=${encodeURIComponent(A40)}`)).toEqual([['e1', 0.0185]]);
    expect(await amounts('templateId=tpl-1&dataCenterId=US-TX-3')).toEqual([]);
  });

  it('bills the network volume per GB-hour, at its size in each hour', async () => {
    const hourly = (await read('/v1/billing/networkvolumes?bucketSize=hour')) as Array<{
      time: string;
      amount: number;
      diskSpaceBilledGb: number;
    }>;
    expect(hourly).toHaveLength(24);
    expect(hourly.slice(0, 12).map((r) => [r.amount, r.diskSpaceBilledGb])).toEqual(Array(12).fill([0.000959, 10]));
    expect(hourly.slice(12).map((r) => [r.amount, r.diskSpaceBilledGb])).toEqual(Array(12).fill([0.004795, 50]));
    expect(hourly[11]?.time).toBe(at('11:00:00'));
    for (const bucketSize of COARSE) {
      expect(await read(`/v1/billing/networkvolumes?bucketSize=${bucketSize}`)).toEqual([
        {
          time: BUCKETS[bucketSize],
          amount: 0.069041,
          diskSpaceBilledGb: 50,
          highPerformanceStorageAmount: 0,
          highPerformanceStorageDiskSpaceBilledGb: 0,
        },
      ]);
    }
  });

  it('changes nothing when every event is delivered again (any order) or the roll-up runs again', async () => {
    const before = await snapshot();
    outcomes.length = 0;
    await publish([...events].reverse(), '-redelivered');
    expect(failures).toEqual([]);
    expect(outcomes).toEqual(Array(events.length).fill('duplicate'));
    expect(await aggregator.rollUp()).toEqual({ resources: 1, created: 0, updated: 0, deleted: 0 });
    expect(await aggregator.rollUp()).toEqual({ resources: 1, created: 0, updated: 0, deleted: 0 });
    expect(await snapshot()).toEqual(before);
  });

  it('rolls open intervals forward to the clock: the volume is billed for the next hour', async () => {
    clock.advance(30 * 60_000);
    expect(await aggregator.rollUp()).toEqual({ resources: 1, created: 1, updated: 0, deleted: 0 });
    clock.advance(30 * 60_000);
    expect(await aggregator.rollUp()).toEqual({ resources: 1, created: 0, updated: 1, deleted: 0 });
    // 50 GB for the hour: 50 x 0.07 / 730 = 0.004795.
    expect(await read('/v1/billing/networkvolumes?bucketSize=hour&startTime=2024-05-07T00:00:00Z')).toEqual([
      {
        time: '2024-05-07T00:00:00Z',
        amount: 0.004795,
        diskSpaceBilledGb: 50,
        highPerformanceStorageAmount: 0,
        highPerformanceStorageDiskSpaceBilledGb: 0,
      },
    ]);
  });
});
