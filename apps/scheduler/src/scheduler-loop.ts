import type { MachinesRepository } from '@runplane/placement';
import type { AutoscalerService } from './autoscaler/autoscaler.service';
import type { JobEvent } from './autoscaler/job-events';
import type { ComputeDriver } from './drivers/compute-driver';
import type { InventoryService } from './inventory/inventory.service';
import type { LeaderElection } from './leader/leader-election';
import type { PlacementService } from './placement/placement.service';
import type { PodReconciler } from './reconciler/pod-reconciler';
import type { UsageRecorder, VolumeShape } from './usage/usage-recorder';

/** Shutdown never waits longer than this on one step (a pass or a release against a store that is gone). */
export const SHUTDOWN_STEP_MS = 5_000;

/** Waits for `promise` (its failure ignored) at most `ms`: shutdown must not hang on an unreachable store. */
export async function bounded(promise: Promise<unknown>, ms = SHUTDOWN_STEP_MS): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([
    promise.then(
      () => undefined,
      () => undefined,
    ),
    elapsed,
  ]);
  clearTimeout(timer);
}

/** What one pass of the loop runs. */
export interface LoopParts {
  leader: LeaderElection;
  driver: ComputeDriver;
  inventory: InventoryService;
  machines: MachinesRepository;
  placement: PlacementService;
  autoscaler: AutoscalerService;
  reconciler: PodReconciler;
  usage: UsageRecorder;
  volumes: () => Promise<VolumeShape[]>;
  clock: () => Date;
  log: (message: string, error?: unknown) => void;
  /** Told how long each leader pass took and whether it failed (metrics). */
  passEnded?: (seconds: number, failed: boolean) => void;
}

/**
 * After a pass the loop rests this many times the pass's duration (at most a tick) before the next one: a cluster
 * changing all the time (hundreds of pods starting) then gets passes that each take in many changes, and the
 * scheduler leaves most of the CPU to the control plane instead of re-reading every row for each pod event. Passes
 * of an idle cluster take milliseconds, so reacting to a queued job is not slowed.
 */
const REST_PER_PASS = 2;

/**
 * The scheduler's control loop: at least every tick, and soon after the driver or the job engine reports a change,
 * the leader syncs the inventory, autoscales, reconciles Pods and records volume usage. Passes never overlap; a
 * change during a pass (or during the rest after it) schedules one more.
 */
export class SchedulerLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  /** No pass starts before this time (performance.now()): the rest after the last one. */
  private restUntil = 0;
  private resting: NodeJS.Timeout | undefined;
  private passesStarted = 0;
  private passesFinished = 0;
  /** Callers of settled() waiting for a pass to end. */
  private passEnded: Array<() => void> = [];

  constructor(
    private readonly parts: LoopParts,
    private readonly tickMs: number,
  ) {}

  start(): void {
    this.parts.driver.onChange(() => this.trigger());
    this.timer = setInterval(() => this.trigger(), this.tickMs);
    this.trigger();
  }

  /**
   * Job engine events: finished jobs restart idle clocks, refresh requests recycle workers, workers reporting themselves
   * unhealthy are marked so and replaced, everything re-plans.
   */
  onJobEvents(events: JobEvent[]): void {
    for (const event of events) {
      if (event.type === 'job.finished' && event.workerId) this.parts.autoscaler.noteFinished(event.workerId);
    }
    if (this.parts.leader.isLeader()) {
      const changes = events.flatMap((event) => {
        if (!event.workerId) return [];
        // Only the leader records cold starts, so each is counted once.
        if (event.type === 'job.started') return [this.parts.autoscaler.noteStarted(event.workerId)];
        if (event.type === 'worker.refresh') return [this.parts.autoscaler.recycle(event.workerId)];
        if (event.type === 'worker.unhealthy')
          return [this.parts.autoscaler.workerReported(event.workerId, event.reason ?? 'Reported unhealthy')];
        return [];
      });
      if (changes.length > 0)
        void Promise.all(changes).catch((error: unknown) => this.parts.log('acting on a worker event failed', error));
    }
    this.trigger();
  }

  /** Whether this replica holds the leadership now. */
  leads(): boolean {
    return this.parts.leader.isLeader();
  }

  /** Runs a pass now, or right after the one in progress. */
  trigger(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.resting) return;
    const rest = this.restUntil - performance.now();
    if (rest > 0) {
      this.resting = setTimeout(() => {
        this.resting = undefined;
        this.trigger();
      }, rest);
      return;
    }
    const began = performance.now();
    this.passesStarted += 1;
    this.running = this.pass().finally(() => {
      const ended = performance.now();
      this.restUntil = ended + Math.min(this.tickMs, (ended - began) * REST_PER_PASS);
      this.running = null;
      this.passesFinished += 1;
      this.wakeSettledCallers();
      if (this.again) {
        this.again = false;
        this.trigger();
      }
    });
  }

  /**
   * Resolves once the loop has caught up with the triggers made so far: after the pass in progress and, when a
   * trigger waits (made during that pass or during the rest after one), the pass it runs. Passes triggered later
   * (ticks, changes meanwhile) are not waited for, so it returns even when a slow loop never rests between passes.
   */
  async settled(): Promise<void> {
    const owed = this.passesStarted + (this.again || this.resting ? 1 : 0);
    while (this.passesFinished < owed) {
      // A stopped loop starts no pass after the one in progress.
      if (this.stopped && !this.running) return;
      await new Promise<void>((resolve) => this.passEnded.push(resolve));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.resting);
    this.resting = undefined;
    this.wakeSettledCallers();
    await bounded(this.settled());
    await bounded(this.parts.leader.release());
  }

  private wakeSettledCallers(): void {
    const waiting = this.passEnded;
    this.passEnded = [];
    for (const wake of waiting) wake();
  }

  private async pass(): Promise<void> {
    const parts = this.parts;
    const began = performance.now();
    let failed = false;
    try {
      if (!(await parts.leader.acquireOrRenew())) return;
      await parts.inventory.sync();
      await parts.autoscaler.scaleAll();
      await parts.reconciler.reconcile();
      await parts.usage.observeVolumes(await parts.volumes(), parts.clock());
      await parts.machines.setAvailable(
        (await parts.placement.inventory()).map((machine) => ({
          id: machine.id,
          gpuAvailable: Math.max(0, machine.gpuFree),
        })),
      );
    } catch (error) {
      failed = true;
      parts.log('scheduler pass failed', error);
    }
    parts.passEnded?.((performance.now() - began) / 1000, failed);
  }
}
