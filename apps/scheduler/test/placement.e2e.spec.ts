// Placement through POST /v1/pods with a real gateway and scheduler over the placement RPC, on a small local inventory.
import { pollUntil } from '@runplane/testing';
import { type PlatformHarness, startPlatform } from './harness';

const H100 = 'NVIDIA H100 80GB HBM3';
const RTX = 'NVIDIA GeForce RTX 4090';
const MACHINES = [
  { name: 'h100-a', gpuProduct: 'NVIDIA-H100-80GB-HBM3', gpuCount: 2, dataCenterId: 'EU-RO-1' },
  { name: 'rtx-a', gpuProduct: 'NVIDIA-GeForce-RTX-4090', gpuCount: 1, dataCenterId: 'EU-RO-1' },
  { name: 'rtx-b', gpuProduct: 'NVIDIA-GeForce-RTX-4090', gpuCount: 4, dataCenterId: 'EU-SE-1' },
];

type PodBody = {
  id: string;
  gpu: { id: string } | null;
  machineId: string | null;
  dataCenterId: string | null;
  message?: string;
};

describe('placement through POST /v1/pods', () => {
  let p: PlatformHarness;

  beforeAll(async () => {
    p = await startPlatform('sched-placement', { scheduler: { SCHEDULER_LOCAL_MACHINES: JSON.stringify(MACHINES) } });
    await pollUntil(async () => (await p.db.machine.count({ where: { ready: true } })) === 3 || undefined, {
      timeoutMs: 20_000,
      description: 'the inventory to be mirrored',
    });
  }, 180_000);

  afterAll(async () => {
    await p?.close();
  }, 60_000);

  const create = (gpuTypeIds: string[], extra: Record<string, unknown> = {}) =>
    p.v1('POST', '/pods', { name: 'placed', imageName: 'runpod/base:0.1', gpuTypeIds, gpuCount: 1, ...extra });

  it('mirrors the driver machines into the Machine table with their GPU types', async () => {
    const machines = await p.db.machine.findMany({ orderBy: { id: 'asc' } });
    expect(machines.map((m) => [m.id, m.gpuTypeId, m.gpuCount, m.dataCenterId])).toEqual([
      ['h100-a', H100, 2, 'EU-RO-1'],
      ['rtx-a', RTX, 1, 'EU-RO-1'],
      ['rtx-b', RTX, 4, 'EU-SE-1'],
    ]);
  }, 60_000);

  it('takes the first GPU type with capacity, then falls back to the next one', async () => {
    const first = await create([H100, RTX], { dataCenterIds: ['EU-RO-1'] });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ gpu: { id: H100 }, machineId: 'h100-a', dataCenterId: 'EU-RO-1' });
    const second = await create([H100, RTX], { dataCenterIds: ['EU-RO-1'] });
    expect(second.body).toMatchObject({ gpu: { id: H100 }, machineId: 'h100-a' });
    const fallback = await create([H100, RTX], { dataCenterIds: ['EU-RO-1'] });
    expect(fallback.status).toBe(201);
    expect(fallback.body).toMatchObject({ gpu: { id: RTX }, machineId: 'rtx-a', dataCenterId: 'EU-RO-1' });
  }, 60_000);

  it('answers 503 at once when nothing fits, in the v1 error shape, and writes nothing', async () => {
    const before = await p.db.pod.count();
    const refused = await create([H100, RTX], { dataCenterIds: ['EU-RO-1'] });
    expect(refused.status).toBe(503);
    const message = (refused.body as PodBody).message ?? '';
    expect(message).toMatch(/^There are no longer any instances available with the requested specifications/);
    expect(message).toContain(`${H100}: 1 GPU requested, at most 0 free on one machine`);
    expect(await p.db.pod.count()).toBe(before);
    expect(await p.db.capacityReservation.count()).toBe(0);
  }, 60_000);

  it('does not over-book under concurrent creates', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => create([RTX], { dataCenterIds: ['EU-SE-1'] })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 201, 201, 503, 503, 503, 503]);
    const placed = await p.db.pod.findMany({ where: { machineId: 'rtx-b' } });
    expect(placed.reduce((sum, pod) => sum + pod.gpuCount, 0)).toBe(4);
  }, 60_000);

  it('frees the capacity of a terminated Pod', async () => {
    const pods = await p.db.pod.findMany({ where: { machineId: 'rtx-a' } });
    expect(pods).toHaveLength(1);
    expect((await p.v1('DELETE', `/pods/${pods[0]?.id ?? ''}`)).status).toBe(204);
    const again = await create([RTX], { dataCenterIds: ['EU-RO-1'] });
    expect(again.body).toMatchObject({ machineId: 'rtx-a' });
  }, 60_000);
});
