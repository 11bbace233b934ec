import { newId } from '@runplane/db';
import { createTestStores, type TestStores } from '@runplane/testing';
import { PodRepository } from './pod.repository';

const day = 86_400_000;
const NO_RELATIONS = { machine: false, networkVolume: false };

describe('PodRepository: one Pod by id on a live database', () => {
  let stores: TestStores;
  let pods: PodRepository;
  let accountId: string;

  beforeAll(async () => {
    stores = await createTestStores('pod-repository');
    pods = new PodRepository(stores.db);
    accountId = (await stores.db.account.create({ data: { id: newId(), name: 'pods' } })).id;
  });

  afterAll(async () => {
    await stores?.close();
  });

  const createPod = async (owner = accountId): Promise<string> => {
    const data = {
      id: newId(),
      accountId: owner,
      image: 'img:a',
      costPerHr: '0.445500',
      ports: ['8888/http', '22/tcp'],
      env: { A: 'b' },
      portMappings: { '22': 10022 },
      dockerStartCmd: ['serve'],
      lastStartedAt: new Date(Date.UTC(2026, 10, 30, 12)),
    };
    return (await stores.db.pod.create({ data })).id;
  };

  const addPlan = async (podId: string, startTime: Date, costPerHr: string): Promise<void> => {
    const endTime = new Date(startTime.getTime() + 30 * day);
    const data = { id: newId(), accountId, podId, gpuTypeId: 'NVIDIA A40', costPerHr, startTime, endTime };
    await stores.db.savingsPlan.create({ data });
  };

  /** The same read through Prisma's select, with the machine and network volume it adds left out. */
  const throughSelect = async (id: string) => {
    const row = await pods.findShown(accountId, id, { machine: true, networkVolume: true });
    if (!row) return row;
    const { machine: _machine, networkVolume: _networkVolume, ...rest } = row;
    return rest;
  };

  it('reads a Pod with its savings plans, oldest first, as Prisma maps it', async () => {
    const id = await createPod();
    // Recorded newest first: the read orders them by start time.
    await addPlan(id, new Date(Date.now() - day), '0.250000');
    await addPlan(id, new Date(Date.now() - 60 * day), '0.123456');
    const row = await pods.findShown(accountId, id, NO_RELATIONS);
    expect(row?.savingsPlans.map((plan) => plan.costPerHr.toString())).toEqual(['0.123456', '0.25']);
    expect(row?.savingsPlans[0]?.startTime).toBeInstanceOf(Date);
    expect(row?.costPerHr.toString()).toBe('0.4455');
    expect(row).toEqual(await throughSelect(id));
  });

  it('reads a Pod without savings plans with none, and nothing of another account or no Pod at all', async () => {
    const id = await createPod();
    const row = await pods.findShown(accountId, id, NO_RELATIONS);
    expect(row?.savingsPlans).toEqual([]);
    expect(row).toEqual(await throughSelect(id));
    const other = (await stores.db.account.create({ data: { id: newId(), name: 'other' } })).id;
    expect(await pods.findShown(other, id, NO_RELATIONS)).toBeNull();
    expect(await pods.findShown(accountId, newId(), NO_RELATIONS)).toBeNull();
  });

  it('reads the columns of a v2 Pod as Prisma maps them, and nothing of another account', async () => {
    const id = await createPod();
    const paged = await pods.findPaged(accountId, id);
    const row = (await pods.findPod(accountId, id)) as Record<string, unknown> | null;
    expect(Object.keys(paged ?? {})).toEqual(
      expect.arrayContaining(['id', 'costPerHr', 'env', 'portMappings', 'observedPhase', 'globalNetworking']),
    );
    expect(paged).toEqual(Object.fromEntries(Object.keys(paged ?? {}).map((column) => [column, row?.[column]])));
    const other = (await stores.db.account.create({ data: { id: newId(), name: 'another' } })).id;
    expect(await pods.findPaged(other, id)).toBeNull();
  });
});
