import { type InventoryMachine, noCapacityMessage, placeMany, placePod, type PlacementRequest } from './placement';

const H100 = 'NVIDIA H100 80GB HBM3';
const RTX = 'NVIDIA GeForce RTX 4090';
const A40 = 'NVIDIA A40';

function machine(
  id: string,
  gpuTypeId: string | null,
  gpuFree: number,
  extra: Partial<InventoryMachine> = {},
): InventoryMachine {
  return {
    id,
    gpuTypeId,
    dataCenterId: 'EU-RO-1',
    gpuCount: 8,
    gpuFree,
    secureCloud: true,
    cpuFree: 64,
    memoryFreeGb: 256,
    cpuFlavorIds: [],
    ready: true,
    ...extra,
  };
}

function gpuRequest(extra: Partial<PlacementRequest> = {}): PlacementRequest {
  return {
    computeType: 'GPU',
    gpuTypeIds: [H100, RTX],
    gpuTypePriority: 'custom',
    gpuCount: 1,
    cloudType: 'SECURE',
    dataCenterIds: [],
    volumeDataCenterId: null,
    cpuFlavorIds: [],
    vcpuCount: 2,
    memoryInGb: 8,
    ...extra,
  };
}

describe('placePod: GPU types', () => {
  it('takes the first GPU type in the caller order that has capacity', () => {
    const result = placePod(gpuRequest(), [machine('rtx-a', RTX, 8), machine('h100-a', H100, 8)]);
    expect(result).toEqual({
      placed: true,
      machineId: 'h100-a',
      gpuTypeId: H100,
      cpuFlavorId: null,
      dataCenterId: 'EU-RO-1',
    });
  });

  it('falls back to the next GPU type when the first has too few free GPUs', () => {
    const result = placePod(gpuRequest({ gpuCount: 4 }), [machine('h100-a', H100, 3), machine('rtx-a', RTX, 8)]);
    expect(result).toMatchObject({ placed: true, gpuTypeId: RTX, machineId: 'rtx-a' });
  });

  it('with availability priority takes the type with the most free GPUs, list order breaking ties', () => {
    const machines = [machine('h100-a', H100, 2), machine('rtx-a', RTX, 6), machine('rtx-b', RTX, 2)];
    expect(placePod(gpuRequest({ gpuTypePriority: 'availability' }), machines)).toMatchObject({ gpuTypeId: RTX });
    const tied = [machine('h100-a', H100, 4), machine('rtx-a', RTX, 4)];
    expect(placePod(gpuRequest({ gpuTypePriority: 'availability' }), tied)).toMatchObject({ gpuTypeId: H100 });
  });

  it('picks the best-fitting machine of a type (fewest free GPUs that fit)', () => {
    const machines = [machine('h100-a', H100, 8), machine('h100-b', H100, 2), machine('h100-c', H100, 1)];
    expect(placePod(gpuRequest({ gpuCount: 2 }), machines)).toMatchObject({ machineId: 'h100-b' });
  });

  it('never uses a machine that is not ready', () => {
    const result = placePod(gpuRequest({ gpuTypeIds: [H100] }), [machine('h100-a', H100, 8, { ready: false })]);
    expect(result).toEqual({ placed: false, reasons: [{ kind: 'not-in-inventory', candidate: H100 }] });
  });
});

describe('placePod: data centers, volumes and clouds', () => {
  const machines = [
    machine('ro', H100, 8, { dataCenterId: 'EU-RO-1' }),
    machine('se', H100, 8, { dataCenterId: 'EU-SE-1' }),
    machine('community', RTX, 8, { dataCenterId: 'EU-SE-1', secureCloud: false }),
  ];

  it('keeps to the allowed data centers', () => {
    expect(placePod(gpuRequest({ dataCenterIds: ['EU-SE-1'] }), machines)).toMatchObject({
      machineId: 'se',
      dataCenterId: 'EU-SE-1',
    });
  });

  it("pins the Pod to its network volume's data center", () => {
    expect(placePod(gpuRequest({ volumeDataCenterId: 'EU-SE-1' }), machines)).toMatchObject({ machineId: 'se' });
  });

  it('refuses a volume outside the allowed data centers', () => {
    const result = placePod(gpuRequest({ volumeDataCenterId: 'EU-SE-1', dataCenterIds: ['EU-RO-1'] }), machines);
    expect(result).toEqual({
      placed: false,
      reasons: [{ kind: 'data-center', candidate: 'EU-SE-1', allowed: ['EU-RO-1'] }],
    });
  });

  it('matches the cloud type: SECURE, COMMUNITY or ALL', () => {
    expect(placePod(gpuRequest({ gpuTypeIds: [RTX], cloudType: 'SECURE' }), machines)).toEqual({
      placed: false,
      reasons: [{ kind: 'cloud-type', candidate: RTX, cloudType: 'SECURE' }],
    });
    expect(placePod(gpuRequest({ gpuTypeIds: [RTX], cloudType: 'COMMUNITY' }), machines)).toMatchObject({
      machineId: 'community',
    });
    expect(placePod(gpuRequest({ gpuTypeIds: [RTX], cloudType: 'ALL' }), machines)).toMatchObject({
      machineId: 'community',
    });
  });

  it('reports a data center with no machine of the type', () => {
    const result = placePod(gpuRequest({ gpuTypeIds: [H100], dataCenterIds: ['US-TX-3'] }), machines);
    expect(result).toEqual({
      placed: false,
      reasons: [{ kind: 'data-center', candidate: H100, allowed: ['US-TX-3'] }],
    });
  });
});

describe('placePod: no capacity', () => {
  it('lists why every candidate failed', () => {
    const result = placePod(gpuRequest({ gpuTypeIds: [H100, RTX, A40], gpuCount: 4 }), [
      machine('h100-a', H100, 3),
      machine('rtx-a', RTX, 1),
    ]);
    expect(result).toEqual({
      placed: false,
      reasons: [
        { kind: 'insufficient-gpus', candidate: H100, requested: 4, mostFree: 3 },
        { kind: 'insufficient-gpus', candidate: RTX, requested: 4, mostFree: 1 },
        { kind: 'not-in-inventory', candidate: A40 },
      ],
    });
    if (result.placed) throw new Error('placed');
    expect(noCapacityMessage(result.reasons)).toBe(
      'There are no longer any instances available with the requested specifications. Please refresh and try again. ' +
        `(${H100}: 4 GPUs requested, at most 3 free on one machine; ${RTX}: 4 GPUs requested, at most 1 free on one machine; ${A40}: no machines)`,
    );
  });

  it('an empty candidate list places nothing', () => {
    expect(placePod(gpuRequest({ gpuTypeIds: [] }), [machine('h100-a', H100, 8)])).toEqual({
      placed: false,
      reasons: [],
    });
  });
});

describe('placePod: CPU Pods', () => {
  const cpuRequest = (extra: Partial<PlacementRequest> = {}): PlacementRequest =>
    gpuRequest({
      computeType: 'CPU',
      gpuTypeIds: [],
      gpuCount: 0,
      cpuFlavorIds: ['cpu3c', 'cpu5c'],
      vcpuCount: 4,
      memoryInGb: 8,
      ...extra,
    });

  it('goes to a CPU machine serving the first flavor with room, never to a GPU machine', () => {
    const machines = [
      machine('gpu', H100, 8),
      machine('cpu5', null, 0, { cpuFlavorIds: ['cpu5c'], cpuFree: 32 }),
      machine('cpu3', null, 0, { cpuFlavorIds: ['cpu3c'], cpuFree: 2 }),
    ];
    expect(placePod(cpuRequest(), machines)).toMatchObject({
      placed: true,
      machineId: 'cpu5',
      cpuFlavorId: 'cpu5c',
      gpuTypeId: null,
    });
  });

  it('answers no capacity when no CPU machine has the vCPUs and memory free', () => {
    const result = placePod(cpuRequest({ cpuFlavorIds: ['cpu3c'] }), [machine('cpu', null, 0, { cpuFree: 2 })]);
    expect(result).toEqual({
      placed: false,
      reasons: [{ kind: 'insufficient-cpu', candidate: 'cpu3c', requestedVcpu: 4, requestedMemoryGb: 8 }],
    });
  });
});

describe('placeMany', () => {
  it('places each Pod where placePod would, given what the earlier ones took', () => {
    const inventory = [machine('h1', H100, 2), machine('h2', H100, 1), machine('r1', RTX, 8)];
    const batch = placeMany(gpuRequest(), inventory, 5);
    expect(batch.placed.map((p) => p.machineId)).toEqual(['h2', 'h1', 'h1', 'r1', 'r1']);
    expect(batch.reasons).toEqual([]);
    expect(inventory[0]?.gpuFree).toBe(2);
  });

  it('fills equally good machines in id order, whatever the order of the inventory', () => {
    const inventory = [machine('h-c', H100, 2), machine('h-a', H100, 2), machine('h-b', H100, 2)];
    expect(placePod(gpuRequest(), inventory)).toMatchObject({ machineId: 'h-a' });
    const batch = placeMany(gpuRequest(), inventory, 5);
    expect(batch.placed.map((p) => p.machineId)).toEqual(['h-a', 'h-a', 'h-b', 'h-b', 'h-c']);
  });

  it('stops at the first Pod that does not fit, with its reasons', () => {
    const batch = placeMany(gpuRequest({ gpuTypeIds: [H100], gpuCount: 2 }), [machine('h1', H100, 5)], 4);
    expect(batch.placed).toHaveLength(2);
    expect(batch.reasons).toEqual([{ kind: 'insufficient-gpus', candidate: H100, requested: 2, mostFree: 1 }]);
  });

  it('takes vCPUs and memory on CPU machines', () => {
    const cpu = machine('c1', null, 0, { gpuCount: 0, cpuFree: 8, memoryFreeGb: 32 });
    const request = gpuRequest({
      computeType: 'CPU',
      gpuTypeIds: [],
      gpuCount: 0,
      cpuFlavorIds: ['cpu3c'],
      vcpuCount: 4,
      memoryInGb: 16,
    });
    const batch = placeMany(request, [cpu], 3);
    expect(batch.placed).toHaveLength(2);
    expect(batch.reasons[0]?.kind).toBe('insufficient-cpu');
  });
});
