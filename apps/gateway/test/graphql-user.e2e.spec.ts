import { DEFAULT_STORAGE_PRICES, seedCatalog } from '@runplane/catalog';
import { UsageAggregator } from '@runplane/billing';
import type { PodDto, PodUsageEvent, UsageEvent, WorkerUsageEvent } from '@runplane/contracts';
import { postGraphql } from './fixtures/graphql/client';
import { CTL_USER } from './fixtures/graphql/runpod-texts';
import { bearer, type GatewayHarness, startGateway } from './harness';

/*
 * runpodctl `user` / `doctor` read `myself`'s account fields. currentSpendPerHr is what billing charges per hour now,
 * from the usage intervals the aggregator derived (default storage prices: Pod disk $0.10/GB-month running, $0.20
 * stopped, network volume $0.07/GB-month; a month is 730 hours):
 *   p1 running, $0.60/h, 73 GB disk (73 x 0.10 / 730 = $0.01/h)            0.61
 *   p2 running, $0.90/h, 73 GB disk, a savings plan of $0.40/h active now  0.41 (an expired $0.10 plan: no effect)
 *   p3 stopped, 73 GB disk (73 x 0.20 / 730 = $0.02/h)                     0.02
 *   p4 terminated, w2 stopped                                              0
 *   w1 running, $1.80/h                                                    1.80
 *   v1 network volume, 100 GB (100 x 0.07 / 730 = 0.009589041...)          0.009589
 *   another account's running Pod ($5/h + $0.01/h disk)                    not counted (5.01 for it)
 *   total                                                                  2.849589
 */

const L4 = 'NVIDIA L4';
const HOUR = 3_600_000;

describe('GraphQL myself account fields (runpodctl user)', () => {
  let gw: GatewayHarness;
  let owner: { accountId: string; secret: string };
  let other: { accountId: string; secret: string };
  let aggregator: UsageAggregator;
  const now = Date.now();
  const ago = (hours: number) => new Date(now - hours * HOUR).toISOString();

  beforeAll(async () => {
    gw = await startGateway('graphql-user');
    await seedCatalog(gw.db);
    owner = await gw.accountWithKey();
    other = await gw.accountWithKey();
    aggregator = new UsageAggregator(gw.db, { prices: DEFAULT_STORAGE_PRICES, clock: { now: () => Date.now() } });
  });

  afterAll(() => gw.close());

  const compute = { gpuTypeId: L4, gpuCount: 1, cpuFlavorId: null, cloudType: 'SECURE' as const, interruptible: false };
  const podEvent = (accountId: string, podId: string, costPerHr: string) => (type: PodUsageEvent['type'], at: string) =>
    ({
      ...{ eventId: `${podId}-${type}`, accountId, occurredAt: at, type, podId, ...compute, dataCenterId: 'EU-RO-1' },
      ...{ costPerHr, containerDiskInGb: 50, volumeInGb: 23, templateId: null, imageName: 'img:pod' },
    }) satisfies PodUsageEvent;
  const workerEvent = (workerId: string) => (type: WorkerUsageEvent['type'], at: string) =>
    ({
      ...{ eventId: `${workerId}-${type}`, accountId: owner.accountId, occurredAt: at, type, workerId, ...compute },
      ...{ endpointId: 'gql-ep', dataCenterId: 'EU-RO-1', costPerHr: '1.80', templateId: null, imageName: 'img:w' },
    }) satisfies WorkerUsageEvent;

  async function realPod(): Promise<PodDto> {
    const res = await gw.inject({
      method: 'POST',
      url: '/v1/pods',
      headers: bearer(owner.secret),
      payload: { name: 'planned', imageName: 'ubuntu:22.04', gpuTypeIds: [L4], gpuCount: 1 },
    });
    expect(res.statusCode).toBe(201);
    return res.json<PodDto>();
  }

  async function savingsPlan(podId: string, costPerHr: number, window: [number, number]): Promise<void> {
    await gw.db.savingsPlan.create({
      data: {
        ...{ id: `plan-${costPerHr}`, accountId: owner.accountId, podId, gpuTypeId: L4, costPerHr },
        ...{ startTime: new Date(now + window[0] * HOUR), endTime: new Date(now + window[1] * HOUR) },
      },
    });
  }

  it('answers a new account with no spend, no balance, no limit and no notifications, as runpodctl decodes them', async () => {
    const fresh = await gw.accountWithKey();
    const res = await postGraphql(gw, { key: fresh.secret, query: CTL_USER, variables: null });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: {
        data: {
          myself: {
            ...{ id: fresh.accountId, email: null, clientBalance: null, currentSpendPerHr: 0, spendLimit: null },
            ...{ notifyPodsStale: false, notifyPodsGeneral: false, notifyLowBalance: false },
          },
        },
      },
    });
  });

  it("answers currentSpendPerHr with what billing charges the account per hour now, and only the caller's", async () => {
    const planned = await realPod();
    await savingsPlan(planned.id, 0.4, [-24, 24]);
    await savingsPlan(planned.id, 0.1, [-48, -24]);
    const p1 = podEvent(owner.accountId, 'gql-p1', '0.60');
    const p2 = podEvent(owner.accountId, planned.id, '0.90');
    const p3 = podEvent(owner.accountId, 'gql-p3', '0.60');
    const p4 = podEvent(owner.accountId, 'gql-p4', '0.60');
    const [w1, w2] = [workerEvent('gql-w1'), workerEvent('gql-w2')];
    const events: UsageEvent[] = [
      ...[p1('pod.started', ago(3)), p2('pod.started', ago(2)), p3('pod.started', ago(3)), p3('pod.stopped', ago(1))],
      ...[p4('pod.started', ago(3)), p4('pod.terminated', ago(1)), w1('worker.started', ago(1))],
      ...[w2('worker.started', ago(2)), w2('worker.stopped', ago(1))],
      podEvent(other.accountId, 'gql-theirs', '5.00')('pod.started', ago(1)),
      {
        ...{ eventId: 'gql-v1-created', accountId: owner.accountId, occurredAt: ago(5), type: 'volume.created' },
        ...{ networkVolumeId: 'gql-v1', dataCenterId: 'EU-RO-1', sizeGb: 100 },
      },
    ];
    for (const event of events) expect(await aggregator.record(event)).toBe('recorded');

    const mine = await postGraphql(gw, { key: owner.secret, query: CTL_USER, variables: null });
    expect(mine.body).toEqual({
      data: {
        myself: {
          ...{ id: owner.accountId, email: null, clientBalance: null, currentSpendPerHr: 2.849589, spendLimit: null },
          ...{ notifyPodsStale: false, notifyPodsGeneral: false, notifyLowBalance: false },
        },
      },
    });
    const theirs = await postGraphql(gw, { key: other.secret, query: 'query { myself { currentSpendPerHr } }' });
    expect(theirs.body).toEqual({ data: { myself: { currentSpendPerHr: 5.01 } } });
  });

  it('answers 401 without a key, as runpodctl expects of a bad key', async () => {
    const res = await gw.inject({ method: 'POST', url: '/graphql', payload: { query: CTL_USER, variables: null } });
    expect(res.statusCode).toBe(401);
  });
});
