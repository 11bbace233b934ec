import { Logger } from '@nestjs/common';
import { createWorkerTokensService, type WorkerTokensService } from '@runplane/accounts';
import { UsageLedgerRepository } from '@runplane/billing';
import type { UsageEvent } from '@runplane/contracts';
import type { DbClient } from '@runplane/db';
import { ScalingRepository, WorkerStateStore } from '@runplane/endpoints';
import { JobScalingReader, LoadBalancerTraffic, WorkerRetirement } from '@runplane/jobs';
import { CapacityRepository, MachinesRepository } from '@runplane/placement';
import { createQueue, createRedis, type Redis, USAGE_QUEUE, usageCatalog, usageJobId } from '@runplane/queue';
import { ColdStartsRepository, PodsStateRepository, VolumeSizesRepository } from '@runplane/workloads';
import { AutoscalerService } from './autoscaler/autoscaler.service';
import { JobEventsFollower } from './autoscaler/job-events';
import { WorkerFleet } from './autoscaler/worker-fleet';
import { WorkerRemoval } from './autoscaler/worker-removal';
import { ColdStarts, driverPhases } from './cold-start/cold-starts';
import type { SchedulerConfig } from './config';
import type { ComputeDriver } from './drivers/compute-driver';
import { InventoryService } from './inventory/inventory.service';
import type { SchedulerMetrics } from './metrics/scheduler-metrics';
import { RedisLeaderElection } from './leader/leader-election';
import { PlacementService } from './placement/placement.service';
import { PodReconciler } from './reconciler/pod-reconciler';
import { PodRows } from './reconciler/pod-rows';
import { WorkloadSpecs } from './reconciler/workload-specs';
import { bounded, type LoopParts, SchedulerLoop } from './scheduler-loop';
import { batchedSaves } from './usage/batched-ledger';
import { UsageRecorder } from './usage/usage-recorder';

const logger = new Logger('Scheduler');
const log = (message: string, error?: unknown): void =>
  logger.error(`${message}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
const clock = (): Date => new Date();

/** What the loop's parts are built from: the app's clients and the scheduler's own. */
interface Wiring {
  config: SchedulerConfig;
  db: DbClient;
  /** The app's client with the deployment key prefix. */
  redis: Redis;
  /** A client without key prefix, for the job engine's keys (which carry the prefix themselves). */
  queueRedis: Redis;
  driver: ComputeDriver;
  placement: PlacementService;
  jobs: JobScalingReader;
  tokens: WorkerTokensService;
  usage: UsageRecorder;
  coldStarts: ColdStarts;
  metrics: SchedulerMetrics | undefined;
}

function createAutoscaler(wiring: Wiring): AutoscalerService {
  const { db, redis, queueRedis, config, usage } = wiring;
  const fleet = new WorkerFleet(new ScalingRepository(db), wiring.placement);
  // A removed worker's usage ends at its removal, not when its process is seen gone.
  const removed = (workerId: string, at: Date) => usage.workerRemoved(workerId, at);
  const retirement = new WorkerRetirement(queueRedis, config.REDIS_PREFIX);
  const removal = new WorkerRemoval(fleet, retirement, wiring.tokens, removed);
  const traffic = new LoadBalancerTraffic(queueRedis, config.REDIS_PREFIX);
  const reports = { states: new WorkerStateStore(redis), coldStarts: wiring.coldStarts };
  return new AutoscalerService(fleet, { jobs: wiring.jobs, traffic }, removal, reports);
}

function createReconciler(wiring: Wiring, inventory: InventoryService, autoscaler: AutoscalerService): PodReconciler {
  const { config, db } = wiring;
  const scaling = new ScalingRepository(db);
  const specs = new WorkloadSpecs(wiring.tokens, {
    jobApiUrl: config.SCHEDULER_JOB_API_URL,
    workerPingMs: config.SCHEDULER_WORKER_PING_MS,
    gpuProductOf: (machineName) => inventory.gpuProductOf(machineName),
    loadBalancing: (endpointIds) => scaling.loadBalancing(endpointIds),
  });
  const rows = new PodRows(new PodsStateRepository(db), clock);
  return new PodReconciler(wiring.driver, rows, specs, wiring.usage, {
    workerFailed: (row, reason) => autoscaler.workerFailed(row, reason),
    workerObserved: (row, status) => wiring.coldStarts.note(row.id, driverPhases(status)),
    clock,
  });
}

function loopParts(wiring: Wiring): LoopParts {
  const { config, db, driver } = wiring;
  const machines = new MachinesRepository(db);
  const inventory = new InventoryService(driver, machines);
  const autoscaler = createAutoscaler(wiring);
  autoscaler.onDecision = (decision) => wiring.metrics?.decided(decision);
  const volumes = new VolumeSizesRepository(db);
  return {
    leader:
      driver.leaderElection?.(config.SCHEDULER_LEADER_TTL_MS) ??
      new RedisLeaderElection(wiring.redis, config.SCHEDULER_LEADER_TTL_MS),
    driver,
    inventory,
    machines,
    placement: wiring.placement,
    autoscaler,
    reconciler: createReconciler(wiring, inventory, autoscaler),
    usage: wiring.usage,
    volumes: () => volumes.all(),
    clock,
    log,
    passEnded: (seconds, failed) => wiring.metrics?.passEnded(seconds, failed),
  };
}

/** Everything the scheduler runs, wired once; started after the app boots and stopped on shutdown. */
export class SchedulerRuntime {
  readonly placement: PlacementService;
  readonly loop: SchedulerLoop;
  /** Workers' cold starts by phase (the app registers their histogram). */
  readonly coldStarts: ColdStarts;
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
    metrics?: SchedulerMetrics,
  ) {
    this.queueRedis = createRedis(config.REDIS_URL);
    this.eventsRedis = createRedis(config.REDIS_URL);
    this.usageQueue = createQueue(usageCatalog, USAGE_QUEUE, { redis: this.queueRedis, prefix: config.REDIS_PREFIX });
    this.placement = new PlacementService(new CapacityRepository(db), clock, (kind, reasons) =>
      metrics?.placementFailed(kind, reasons),
    );
    const jobs = new JobScalingReader(this.queueRedis, config.REDIS_PREFIX);
    const usage = new UsageRecorder(batchedSaves(new UsageLedgerRepository(db)), (event) => this.publishUsage(event));
    const tokens = createWorkerTokensService(db);
    const wiring = {
      config,
      db,
      redis,
      queueRedis: this.queueRedis,
      driver,
      placement: this.placement,
      jobs,
      tokens,
      usage,
      coldStarts: (this.coldStarts = new ColdStarts(new ColdStartsRepository(db))),
      metrics,
    };
    this.loop = new SchedulerLoop(loopParts(wiring), config.SCHEDULER_TICK_MS);
    metrics?.leadership(() => this.loop.leads());
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

  private async publishUsage(event: UsageEvent): Promise<void> {
    await this.usageQueue.add('usage.record', event, { jobId: usageJobId(event.eventId) });
  }
}
