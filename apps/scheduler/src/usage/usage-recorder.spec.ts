import type { UsageEvent } from '@runplane/contracts';
import type { LedgerEntry, UsageLedgerRepository } from '@runplane/billing';
import { type PodUsageShape, UsageRecorder } from './usage-recorder';

/** The ledger table's behaviour, in memory. */
class MemoryLedger {
  readonly rows = new Map<string, LedgerEntry>();
  find(id: string) {
    return Promise.resolve(this.rows.get(id) ?? null);
  }
  listKind(kinds: string[]) {
    return Promise.resolve([...this.rows.values()].filter((row) => kinds.includes(row.kind)));
  }
  save(entry: LedgerEntry) {
    this.rows.set(entry.resourceId, structuredClone(entry));
    return Promise.resolve();
  }
  remove(id: string) {
    this.rows.delete(id);
    return Promise.resolve();
  }
}

const shape = (extra: Partial<PodUsageShape> = {}): PodUsageShape => ({
  podId: 'pod1',
  accountId: 'acc',
  endpointId: null,
  gpuTypeId: 'NVIDIA H100 80GB HBM3',
  gpuCount: 2,
  cpuFlavorId: null,
  cloudType: 'SECURE',
  interruptible: false,
  dataCenterId: 'EU-RO-1',
  costPerHr: '5.380000',
  templateId: null,
  imageName: 'img',
  containerDiskInGb: 50,
  volumeInGb: 20,
  ...extra,
});

describe('UsageRecorder', () => {
  let ledger: MemoryLedger;
  let published: UsageEvent[];
  let recorder: UsageRecorder;
  const t = (second: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, second));

  beforeEach(() => {
    ledger = new MemoryLedger();
    published = [];
    recorder = new UsageRecorder(ledger as unknown as UsageLedgerRepository, (event) => {
      published.push(event);
      return Promise.resolve();
    });
  });

  const ids = () => published.map((event) => event.eventId);

  it('publishes each transition once, however often the same state is observed', async () => {
    await recorder.observePod(shape(), true, t(1));
    await recorder.observePod(shape(), true, t(1));
    await recorder.observePod(shape(), false, t(5));
    await recorder.observePod(shape(), false, t(6));
    await recorder.observePod(shape(), true, t(9));
    expect(ids()).toEqual(['pod1:started:1', 'pod1:stopped:1', 'pod1:started:2']);
    expect(published[0]).toMatchObject({
      type: 'pod.started',
      occurredAt: t(1).toISOString(),
      costPerHr: '5.380000',
      gpuCount: 2,
    });
  });

  it('a new start time while running is a restart: a stop, then a start', async () => {
    await recorder.observePod(shape(), true, t(1));
    await recorder.observePod(shape(), true, t(30));
    expect(ids()).toEqual(['pod1:started:1', 'pod1:stopped:1', 'pod1:started:2']);
  });

  it('a failed publish leaves the ledger as it was, so the same event id is published again', async () => {
    const failing = new UsageRecorder(ledger as unknown as UsageLedgerRepository, () =>
      Promise.reject(new Error('redis down')),
    );
    await expect(failing.observePod(shape(), true, t(1))).rejects.toThrow('redis down');
    await recorder.observePod(shape(), true, t(1));
    expect(ids()).toEqual(['pod1:started:1']);
  });

  it('a gone Pod gets its last stop and its termination; a gone worker only its stop', async () => {
    await recorder.observePod(shape(), true, t(1));
    await recorder.observePod(shape({ podId: 'w1', endpointId: 'ep' }), true, t(2));
    for (const entry of await ledger.listKind(['pod', 'worker'])) await recorder.podGone(entry, t(10));
    expect(ids()).toEqual(['pod1:started:1', 'w1:started:1', 'pod1:stopped:1', 'pod1:terminated:1', 'w1:stopped:1']);
    expect(published[3]).toMatchObject({ type: 'pod.terminated', containerDiskInGb: 50, volumeInGb: 20 });
    expect(published[4]).toMatchObject({ type: 'worker.stopped', endpointId: 'ep', workerId: 'w1' });
    expect(ledger.rows.size).toBe(0);
  });

  it('a removed worker stops at its removal, whenever its process is seen gone; a worker removed before it ran bills nothing', async () => {
    await recorder.observePod(shape({ podId: 'w1', endpointId: 'ep' }), true, t(2));
    await recorder.workerRemoved('w1', t(7));
    await recorder.workerRemoved('never-ran', t(7));
    // Its process is seen gone later: nothing is left to settle.
    expect(await ledger.listKind(['worker'])).toEqual([]);
    expect(ids()).toEqual(['w1:started:1', 'w1:stopped:1']);
    expect(published[1]).toMatchObject({ type: 'worker.stopped', workerId: 'w1', occurredAt: t(7).toISOString() });
  });

  it('network volumes: created, resized (numbered), deleted with their last size', async () => {
    const volume = {
      id: 'vol1',
      accountId: 'acc',
      dataCenterId: 'EU-RO-1',
      size: 10,
      createdAt: t(1),
      updatedAt: t(1),
    };
    await recorder.observeVolumes([volume], t(2));
    await recorder.observeVolumes([volume], t(3));
    await recorder.observeVolumes([{ ...volume, size: 20, updatedAt: t(4) }], t(5));
    await recorder.observeVolumes([{ ...volume, size: 30, updatedAt: t(6) }], t(7));
    await recorder.observeVolumes([], t(8));
    expect(ids()).toEqual(['vol1:created:0', 'vol1:resized:1', 'vol1:resized:2', 'vol1:deleted:2']);
    expect(published.map((event) => ('sizeGb' in event ? event.sizeGb : null))).toEqual([10, 20, 30, 30]);
  });
});
