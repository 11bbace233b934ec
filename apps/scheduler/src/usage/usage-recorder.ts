import type { PodUsageEvent, UsageEvent, VolumeUsageEvent, WorkerUsageEvent } from '@runplane/contracts';
import type { LedgerEntry, UsageLedgerRepository } from '@runplane/billing';
import type { VolumeSize } from '@runplane/workloads';

/** The ledger as the recorder uses it (the runtime's saves are batched, see `batchedSaves`). */
export type UsageLedger = Pick<UsageLedgerRepository, 'find' | 'listKind' | 'save' | 'remove'>;

/** Publishes one usage event; `eventId` is the BullMQ job id, so a second publish of the same event is dropped. */
export type UsagePublisher = (event: UsageEvent) => Promise<void>;

/** The compute and disk of a Pod or worker as billed (the usage event's fields). */
export interface PodUsageShape {
  podId: string;
  accountId: string;
  endpointId: string | null;
  gpuTypeId: string | null;
  gpuCount: number;
  cpuFlavorId: string | null;
  cloudType: 'SECURE' | 'COMMUNITY';
  interruptible: boolean;
  dataCenterId: string | null;
  costPerHr: string;
  templateId: string | null;
  imageName: string;
  containerDiskInGb: number;
  volumeInGb: number;
}

/** A network volume as billed. */
export type VolumeShape = VolumeSize;

const compute = (shape: PodUsageShape) => ({
  gpuTypeId: shape.gpuTypeId,
  gpuCount: shape.gpuCount,
  cpuFlavorId: shape.cpuFlavorId,
  cloudType: shape.cloudType,
  interruptible: shape.interruptible,
  dataCenterId: shape.dataCenterId,
  costPerHr: shape.costPerHr,
  templateId: shape.templateId,
  imageName: shape.imageName,
});

/**
 * Turns observed transitions into usage events, exactly once each: the ledger row says what billing was last told,
 * event ids are deterministic (`<podId>:started:<seq>`, `<podId>:stopped:<seq>`, `<podId>:terminated:<seq>`,
 * `<volumeId>:resized:<seq>` ...; always three parts, as BullMQ requires of ids with colons), and the ledger is written only after the publish succeeded, so a crash in between
 * republishes the same id, which BullMQ and the aggregator both drop.
 */
export class UsageRecorder {
  constructor(
    private readonly ledger: UsageLedger,
    private readonly publish: UsagePublisher,
  ) {}

  /** What billing was last told of each Pod and worker (for a reconciler pass to hand back to `observePod`). */
  podEntries(): Promise<LedgerEntry[]> {
    return this.ledger.listKind(['pod', 'worker']);
  }

  /**
   * A Pod or worker observed running (`at` = when its process started) or not running (`at` = when it ended). A
   * running Pod with a new start time was restarted in between: it stopped, then started again. `known` is the
   * Pod's ledger entry as the caller just read it (null: none), to spare the lookup.
   */
  async observePod(shape: PodUsageShape, running: boolean, at: Date, known?: LedgerEntry | null): Promise<void> {
    const kind = shape.endpointId === null ? 'pod' : 'worker';
    const found = known === undefined ? await this.ledger.find(shape.podId) : known;
    let entry = found ?? {
      resourceId: shape.podId,
      kind,
      accountId: shape.accountId,
      seq: 0,
      running: false,
      snapshot: {},
    };
    const startedAt = at.toISOString();
    if (running && entry.running && entry.snapshot['startedAt'] !== startedAt) {
      await this.publish(this.podEvent(shape, 'stopped', `${shape.podId}:stopped:${entry.seq}`, at));
      entry = { ...entry, running: false };
      await this.ledger.save(entry);
    }
    if (running === entry.running) return;
    const seq = running ? entry.seq + 1 : entry.seq;
    await this.publish(
      this.podEvent(
        shape,
        running ? 'started' : 'stopped',
        `${shape.podId}:${running ? 'started' : 'stopped'}:${seq}`,
        at,
      ),
    );
    await this.ledger.save({
      ...entry,
      seq,
      running,
      snapshot: { ...shape, ...(running ? { startedAt } : { startedAt: entry.snapshot['startedAt'] ?? null }) },
    });
  }

  /** Whether {@link observePod} with this ledger entry (null: none) would publish anything; callers skip it otherwise. */
  changes(entry: LedgerEntry | null, running: boolean, at: Date): boolean {
    if (!entry) return running;
    if (running && entry.running && entry.snapshot['startedAt'] !== at.toISOString()) return true;
    return running !== entry.running;
  }

  /**
   * The autoscaler removed a worker at `at`: its usage ends then, however long its process takes to stop. Its ledger
   * entry goes with it, so the reconciler settles nothing more for it.
   */
  async workerRemoved(workerId: string, at: Date): Promise<void> {
    const entry = await this.ledger.find(workerId);
    if (entry) await this.podGone(entry, at);
  }

  /** The Pod row is gone: a last stop if it was running, then (Pods only) the termination. */
  async podGone(entry: LedgerEntry, at: Date): Promise<void> {
    const shape = entry.snapshot as unknown as PodUsageShape;
    if (entry.running)
      await this.publish(this.podEvent(shape, 'stopped', `${entry.resourceId}:stopped:${entry.seq}`, at));
    if (entry.kind === 'pod')
      await this.publish(this.podEvent(shape, 'terminated', `${entry.resourceId}:terminated:${entry.seq}`, at));
    await this.ledger.remove(entry.resourceId);
  }

  /** Network volumes as they are now: creations, resizes and deletions since the last call. */
  async observeVolumes(volumes: VolumeShape[], now: Date): Promise<void> {
    const known = new Map((await this.ledger.listKind(['volume'])).map((entry) => [entry.resourceId, entry]));
    for (const volume of volumes) {
      const entry = known.get(volume.id);
      known.delete(volume.id);
      if (!entry) {
        await this.publish(this.volumeEvent(volume, 'volume.created', `${volume.id}:created:0`, volume.createdAt));
      } else if (entry.snapshot['size'] !== volume.size) {
        await this.publish(
          this.volumeEvent(volume, 'volume.resized', `${volume.id}:resized:${entry.seq + 1}`, volume.updatedAt),
        );
      } else continue;
      await this.ledger.save({
        resourceId: volume.id,
        kind: 'volume',
        accountId: volume.accountId,
        seq: entry ? entry.seq + 1 : 0,
        running: false,
        snapshot: { size: volume.size, dataCenterId: volume.dataCenterId },
      });
    }
    for (const gone of known.values()) {
      const volume = {
        id: gone.resourceId,
        accountId: gone.accountId,
        dataCenterId: String(gone.snapshot['dataCenterId']),
        size: Number(gone.snapshot['size']),
      };
      await this.publish(
        this.volumeEvent(
          { ...volume, createdAt: now, updatedAt: now },
          'volume.deleted',
          `${gone.resourceId}:deleted:${gone.seq}`,
          now,
        ),
      );
      await this.ledger.remove(gone.resourceId);
    }
  }

  private podEvent(
    shape: PodUsageShape,
    transition: 'started' | 'stopped' | 'terminated',
    eventId: string,
    at: Date,
  ): PodUsageEvent | WorkerUsageEvent {
    const base = { eventId, accountId: shape.accountId, occurredAt: at.toISOString(), ...compute(shape) };
    if (shape.endpointId !== null) {
      return {
        ...base,
        type: transition === 'started' ? 'worker.started' : 'worker.stopped',
        endpointId: shape.endpointId,
        workerId: shape.podId,
      };
    }
    return {
      ...base,
      type: `pod.${transition}`,
      podId: shape.podId,
      containerDiskInGb: shape.containerDiskInGb,
      volumeInGb: shape.volumeInGb,
    };
  }

  private volumeEvent(
    volume: VolumeShape,
    type: VolumeUsageEvent['type'],
    eventId: string,
    at: Date,
  ): VolumeUsageEvent {
    return {
      eventId,
      type,
      accountId: volume.accountId,
      occurredAt: at.toISOString(),
      networkVolumeId: volume.id,
      dataCenterId: volume.dataCenterId,
      sizeGb: volume.size,
    };
  }
}
