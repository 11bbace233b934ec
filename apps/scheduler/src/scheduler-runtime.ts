import { Logger } from '@nestjs/common';
import { createWorkerTokensService } from '@runplane/accounts';
import { USAGE_QUEUE, usageCatalog, usageJobId } from '@runplane/billing';
import type { DbClient } from '@runplane/db';
import { WorkerStateStore } from '@runplane/endpoints';
import { JobScalingReader, WorkerRetirement } from '@runplane/jobs';
import { createQueue, createRedis, type Redis } from '@runplane/queue';
import { AutoscalerService } from './autoscaler/autoscaler.service';
import { JobEventsFollower } from './autoscaler/job-events';
import { ScalingRepository } from './autoscaler/scaling.repository';
import type { SchedulerConfig } from './config';
import type { ComputeDriver } from './drivers/compute-driver';
import { InventoryService } from './inventory/inventory.service';
import { MachinesRepository } from './inventory/machines.repository';
import { RedisLeaderElection } from './leader/leader-election';
import { CapacityRepository } from './placement/capacity.repository';
import { PlacementService } from './placement/placement.service';
import { PodReconciler } from './reconciler/pod-reconciler';
import { PodsStateRepository } from './reconciler/pods-state.repository';
import { WorkloadSpecs } from './reconciler/workload-specs';
import { bounded, SchedulerLoop } from './scheduler-loop';
import { UsageLedgerRepository } from './usage/usage-ledger.repository';
import { UsageRecorder } from './usage/usage-recorder';

const logger = new Logger('Scheduler');
const log = (message: string, error?: unknown): void =>
  logger.error(`${message}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);

/** Everything the scheduler runs, wired once; started after the app boots and stopped on shutdown. */
export class SchedulerRuntime {
  readonly placement: PlacementService;
  readonly loop: SchedulerLoop;
  private readonly queueRedis: Redis;
  private readonly eventsRedis: Redis;
  private readonly usageQueue;
  private readonly follower: JobEventsFollower;
  private stopped = false;

  constructor(
    config: SchedulerConfig,
    db: DbClient,
    /** The app's client with the deployment key prefix. */
    redis: Redis,
    readonly driver: ComputeDriver,
  ) {
    this.queueRedis = createRedis(config.REDIS_URL);
    this.eventsRedis = createRedis(config.REDIS_URL);
    this.usageQueue = createQueue(usageCatalog, USAGE_QUEUE, { redis: this.queueRedis, prefix: config.REDIS_PREFIX });
    const machines = new MachinesRepository(db);
    this.placement = new PlacementService(db, new CapacityRepository());
    const ledger = new UsageLedgerRepository(db);
    const usage = new UsageRecorder(ledger, async (event) => {
      await this.usageQueue.add('usage.record', event, { jobId: usageJobId(event.eventId) });
    });
    const tokens = createWorkerTokensService(db);
    const inventory = new InventoryService(driver, machines);
    const jobs = new JobScalingReader(this.queueRedis, config.REDIS_PREFIX);
    const retirement = new WorkerRetirement(this.queueRedis, config.REDIS_PREFIX);
    // A removed worker's usage ends at its removal, not when its process is seen gone.
    const removed = (workerId: string, at: Date) => usage.workerRemoved(workerId, at);
    const autoscaler = new AutoscalerService(
      new ScalingRepository(db),
      this.placement,
      jobs,
      retirement,
      new WorkerStateStore(redis),
      tokens,
      removed,
    );
    const specs = new WorkloadSpecs(tokens, {
      jobApiUrl: config.SCHEDULER_JOB_API_URL,
      workerPingMs: config.SCHEDULER_WORKER_PING_MS,
      gpuProductOf: (machineName) => inventory.gpuProductOf(machineName),
    });
    const reconciler = new PodReconciler(driver, new PodsStateRepository(db), specs, usage, ledger, (row, reason) =>
      autoscaler.workerFailed(row, reason),
    );
    this.loop = new SchedulerLoop(
      {
        leader:
          driver.leaderElection?.(config.SCHEDULER_LEADER_TTL_MS) ??
          new RedisLeaderElection(redis, config.SCHEDULER_LEADER_TTL_MS),
        driver,
        inventory,
        machines,
        placement: this.placement,
        autoscaler,
        reconciler,
        usage,
        volumes: () => db.networkVolume.findMany(),
        clock: () => new Date(),
        log,
      },
      config.SCHEDULER_TICK_MS,
    );
    this.follower = new JobEventsFollower(
      this.eventsRedis,
      jobs.eventsKey,
      (events) => this.loop.onJobEvents(events),
      (error) => log('reading job events failed', error),
    );
  }

  start(): void {
    this.loop.start();
    this.follower.start();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.follower.stop();
    await this.loop.stop();
    await bounded(this.driver.close());
    await bounded(this.usageQueue.close());
    // QUIT would wait for a Redis that is gone: drop the socket then.
    if (this.queueRedis.status === 'ready') await bounded(this.queueRedis.quit());
    this.queueRedis.disconnect();
  }
}
