import type { PodUsageEvent, UsageEvent, WorkerUsageEvent } from '@runplane/contracts';
import { type DatabaseClient, newId } from '@runplane/db';
import type { NestFastifyApplication } from '@runplane/http';
import { createQueue, defineJobCatalog, type Redis, USAGE_QUEUE, usageCatalog } from '@runplane/queue';
import { createTestStores, FakeClock, podUsageEvent, pollUntil, type TestStores } from '@runplane/testing';
import { z } from 'zod';
import { startAggregatorInProcess } from './in-process';

/*
 * The billing-aggregator app as it runs: its usage consumer on a real BullMQ queue, Postgres, a fake clock.
 * Pods here have no disk unless a test gives them one, so amounts are compute only.
 */

const HOUR = 3_600_000;
const T0 = Date.parse('2024-06-03T10:00:00Z');
const iso = (offsetMs: number) => new Date(T0 + offsetMs).toISOString();

describe('billing-aggregator usage intake', () => {
  let stores: TestStores;
  let db: DatabaseClient;
  let app: NestFastifyApplication;
  let redis: Redis;
  let accountId: string;
  let prefix: string;
  const clock = new FakeClock(T0 + 24 * HOUR);
  let queue: ReturnType<typeof createQueue<typeof usageCatalog, typeof USAGE_QUEUE>>;

  const podEvent = (
    podId: string,
    type: PodUsageEvent['type'],
    offsetMs: number,
    extra: Partial<PodUsageEvent> = {},
  ): PodUsageEvent =>
    podUsageEvent(
      { eventId: `${podId}-${type}-${offsetMs}`, accountId, occurredAt: iso(offsetMs), type, podId },
      extra,
    );

  async function deliver(events: UsageEvent[], jobSuffix = ''): Promise<void> {
    for (const event of events) await queue.add('usage.record', event, { jobId: `${event.eventId}${jobSuffix}` });
    await pollUntil(async () => (await queue.pendingCount()) === 0, {
      timeoutMs: 30_000,
      description: 'usage queue drained',
    });
  }

  async function podRecords(podId: string) {
    const rows = await db.billingRecord.findMany({ where: { podId }, orderBy: [{ time: 'asc' }] });
    return rows.map((row) => ({
      time: row.time.toISOString(),
      amount: row.amount.toString(),
      ms: Number(row.timeBilledMs),
      disk: row.diskSpaceBilledGb,
    }));
  }

  async function failedMetric(reason: string): Promise<number> {
    const res = await app.getHttpAdapter().getInstance().inject({ method: 'GET', url: '/metrics' });
    const line = res.body
      .split('\n')
      .find((l: string) => l.startsWith('runplane_usage_events_failed_total') && l.includes(`reason="${reason}"`));
    return line === undefined ? 0 : Number(line.split(' ').pop());
  }

  beforeAll(async () => {
    stores = await createTestStores('usage-intake');
    ({ db, redis, prefix } = stores);
    accountId = newId();
    await db.account.create({ data: { id: accountId, name: 'usage' } });
    app = await startAggregatorInProcess({
      env: { DATABASE_URL: stores.database.url, REDIS_PREFIX: prefix, LOG_LEVEL: 'silent' },
      concurrency: 3,
      clock,
    });
    queue = createQueue(usageCatalog, USAGE_QUEUE, { redis, prefix });
  });

  afterAll(async () => {
    await app.close();
    await queue.close();
    await stores.close();
  });

  it('derives the same records whatever order events arrive in; a stop before its start bills the stop first', async () => {
    // Runs 0-90 min, stopped 90-120 min, runs 120-140 min, terminated; 73 GB of disk ($0.01/h running, $0.02/h stopped).
    const disk = { containerDiskInGb: 50, volumeInGb: 23 };
    const history = (podId: string) => [
      podEvent(podId, 'pod.started', 0, disk),
      podEvent(podId, 'pod.stopped', 90 * 60_000, disk),
      podEvent(podId, 'pod.started', 120 * 60_000, disk),
      podEvent(podId, 'pod.terminated', 140 * 60_000, disk),
    ];
    await deliver(history('ordered'));

    const [start, stop, restart, terminate] = history('shuffled');
    await deliver([stop!]);
    // Only the stop is known: the stopped disk is billed from 11:30 on, up to the clock's now.
    expect((await podRecords('shuffled'))[0]).toEqual({
      time: '2024-06-03T11:00:00.000Z',
      amount: '0.01',
      ms: 0,
      disk: 73,
    });
    await deliver([terminate!, start!]);
    await deliver([restart!]);
    const expected = [
      { time: '2024-06-03T10:00:00.000Z', amount: '0.61', ms: HOUR, disk: 73 }, // 0.60 + 0.01
      { time: '2024-06-03T11:00:00.000Z', amount: '0.315', ms: HOUR / 2, disk: 73 }, // 0.30 + 0.005 + 0.01
      { time: '2024-06-03T12:00:00.000Z', amount: '0.2033333333', ms: HOUR / 3, disk: 73 }, // 0.20 + 0.01 / 3
    ];
    expect(await podRecords('ordered')).toEqual(expected);
    expect(await podRecords('shuffled')).toEqual(expected);
    const intervals = await db.usageInterval.findMany({
      where: { resourceId: 'shuffled' },
      orderBy: { startedAt: 'asc' },
    });
    expect(intervals.map((i) => [i.phase, i.startedAt.toISOString(), i.endedAt?.toISOString()])).toEqual([
      ['RUNNING', '2024-06-03T10:00:00.000Z', '2024-06-03T11:30:00.000Z'],
      ['STOPPED', '2024-06-03T11:30:00.000Z', '2024-06-03T12:00:00.000Z'],
      ['RUNNING', '2024-06-03T12:00:00.000Z', '2024-06-03T12:20:00.000Z'],
    ]);
  });

  it('bills a Pod at its savings plan rate while the plan is active', async () => {
    await db.pod.create({ data: { id: 'planned', accountId, image: 'img:pod' } });
    // $0.30/h from 10:30 to 11:30; the Pod runs 10:00-11:00 at $0.60/h: 30 min x 0.60 + 30 min x 0.30 = 0.30 + 0.15.
    await db.savingsPlan.create({
      data: {
        id: newId(),
        accountId,
        podId: 'planned',
        gpuTypeId: 'NVIDIA L4',
        costPerHr: '0.30',
        startTime: new Date(iso(HOUR / 2)),
        endTime: new Date(iso(1.5 * HOUR)),
      },
    });
    await deliver([podEvent('planned', 'pod.started', 0), podEvent('planned', 'pod.terminated', HOUR)]);
    expect(await podRecords('planned')).toEqual([
      { time: '2024-06-03T10:00:00.000Z', amount: '0.45', ms: HOUR, disk: 0 },
    ]);
  });

  it('copies template and image from the Pod row onto records when a worker event lacks them', async () => {
    await db.template.create({ data: { id: 'tpl-w', accountId, name: 'w', imageName: 'img:w' } });
    await db.endpoint.create({ data: { id: 'ep-w', accountId, name: 'w', templateId: 'tpl-w' } });
    await db.pod.create({ data: { id: 'wk-1', accountId, image: 'img:w', endpointId: 'ep-w' } });
    const worker = (type: WorkerUsageEvent['type'], offsetMs: number): WorkerUsageEvent => ({
      eventId: `wk-1-${type}`,
      accountId,
      occurredAt: iso(offsetMs),
      type,
      endpointId: 'ep-w',
      workerId: 'wk-1',
      gpuTypeId: 'NVIDIA L4',
      gpuCount: 1,
      cpuFlavorId: null,
      cloudType: 'SECURE',
      interruptible: false,
      dataCenterId: 'US-TX-3',
      costPerHr: '0.72',
    });
    await deliver([worker('worker.started', 0), worker('worker.stopped', 10_000)]);
    // The worker row goes away; the record keeps what it ran: 10 s x $0.0002/s = 0.002.
    await db.pod.delete({ where: { id: 'wk-1' } });
    const [record] = await db.billingRecord.findMany({ where: { podId: 'wk-1' } });
    expect(record).toMatchObject({
      kind: 'ENDPOINT',
      endpointId: 'ep-w',
      templateId: 'tpl-w',
      imageName: 'img:w',
      dataCenterId: 'US-TX-3',
    });
    expect(record?.amount.toString()).toBe('0.002');
  });

  describe('refuses malformed events without writing anything, and reports them', () => {
    const state = async () => ({
      events: await db.usageEvent.count(),
      intervals: await db.usageInterval.findMany({ orderBy: { id: 'asc' } }),
      records: await db.billingRecord.findMany({ orderBy: { id: 'asc' } }),
    });

    it('a payload that fails the event schema', async () => {
      const before = await state();
      // A producer on another contract version: same queue and job name, no schema check of its own.
      const loose = defineJobCatalog({ 'usage.record': { queue: USAGE_QUEUE, schema: z.unknown(), attempts: 10 } });
      const producer = createQueue(loose, USAGE_QUEUE, { redis, prefix });
      await producer.add(
        'usage.record',
        { ...podEvent('bad', 'pod.started', 0), costPerHr: -1 },
        { jobId: 'bad-payload' },
      );
      await producer.close();
      await pollUntil(async () => (await failedMetric('INVALID_PAYLOAD')) === 1, { timeoutMs: 10_000 });
      expect(await state()).toEqual(before);
    });

    it('an event id reused with different content, an unknown account, a resource of another account', async () => {
      const other = newId();
      await db.account.create({ data: { id: other, name: 'other' } });
      await deliver([podEvent('mine', 'pod.started', 0)]);
      const before = await state();
      // Another job id: BullMQ would drop a second job with the first one's id before the aggregator saw it.
      await deliver([{ ...podEvent('mine', 'pod.started', 0), costPerHr: '0.01' }], '-again');
      await deliver([
        { ...podEvent('ghost', 'pod.started', 0), accountId: 'no-such-account' },
        { ...podEvent('mine', 'pod.stopped', HOUR), accountId: other },
      ]);
      expect(await state()).toEqual(before);
      expect(await failedMetric('EVENT_ID_CONFLICT')).toBe(1);
      expect(await failedMetric('UNKNOWN_ACCOUNT')).toBe(1);
      expect(await failedMetric('ACCOUNT_MISMATCH')).toBe(1);
    });
  });
});
