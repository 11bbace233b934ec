// The autoscaler's removal of an idle worker, on a fake clock against real Postgres and Redis: the first pass once the
// worker has been idle for idleTimeout removes it, and from that very moment /health's live workers (the job engine's
// view) no longer count it, even while its process, asked to stop, still pings, and its billed usage ends then.
import { createAccountsServices, createWorkerTokensService } from '@runplane/accounts';
import { UsageLedgerRepository } from '@runplane/billing';
import { seedCatalog } from '@runplane/catalog';
import type { UsageEvent } from '@runplane/contracts';
import { newId } from '@runplane/db';
import { ScalingRepository, WorkerStateStore } from '@runplane/endpoints';
import { JobScalingReader, LoadBalancerTraffic, RedisJobEngine, WorkerRetirement } from '@runplane/jobs';
import { CapacityRepository } from '@runplane/placement';
import { createRedis, type Redis } from '@runplane/queue';
import { createTestStores, FakeClock, TEST_REDIS_URL, type TestStores } from '@runplane/testing';
import { ColdStartsRepository } from '@runplane/workloads';
import { ColdStarts } from '../cold-start/cold-starts';
import { PlacementService } from '../placement/placement.service';
import { usageShape } from '../reconciler/pod-reconciler';
import { UsageRecorder } from '../usage/usage-recorder';
import { AutoscalerService } from './autoscaler.service';
import { WorkerFleet } from './worker-fleet';
import { WorkerRemoval } from './worker-removal';

const RTX = 'NVIDIA GeForce RTX 4090';
const IDLE_TIMEOUT_S = 5;

describe('AutoscalerService: removing an idle worker', () => {
  const clock = new FakeClock();
  const published: UsageEvent[] = [];
  let stores: TestStores;
  let db: TestStores['db'];
  let prefix: string;
  let redis: Redis;
  let prefixed: Redis;
  let engine: RedisJobEngine;
  let retirement: WorkerRetirement;
  let ledger: UsageLedgerRepository;
  let usage: UsageRecorder;
  let autoscaler: AutoscalerService;
  let endpointId: string;
  let accountId: string;

  beforeAll(async () => {
    stores = await createTestStores('sched-idle-removal');
    ({ db, prefix, redis } = stores);
    prefixed = createRedis(TEST_REDIS_URL, { keyPrefix: prefix });
    await seedCatalog(db);
    await db.machine.create({
      data: {
        id: 'm1',
        name: 'm1',
        gpuTypeId: RTX,
        gpuCount: 8,
        cpuCount: 64,
        memoryInGb: 512,
        dataCenterId: 'EU-RO-1',
        ready: true,
      },
    });
    accountId = (await createAccountsServices(db).accounts.create({ name: 'idle-removal' })).id;
    const template = await db.template.create({
      data: { id: newId(), accountId, name: 'echo', imageName: 'runplane/echo:1', isServerless: true },
    });
    endpointId = (
      await db.endpoint.create({
        data: {
          id: newId(),
          accountId,
          name: 'echo',
          templateId: template.id,
          gpuTypeIds: [RTX],
          workersMin: 0,
          workersMax: 1,
          idleTimeout: IDLE_TIMEOUT_S,
          scalerValue: 1,
        },
      })
    ).id;
    engine = new RedisJobEngine({ queueOrdered: redis, prefix, region: 'u1', clock });
    retirement = new WorkerRetirement(redis, prefix);
    ledger = new UsageLedgerRepository(db);
    usage = new UsageRecorder(ledger, async (event) => {
      published.push(event);
    });
    const fleet = new WorkerFleet(new ScalingRepository(db), new PlacementService(new CapacityRepository(db)));
    const removed = (workerId: string, at: Date) => usage.workerRemoved(workerId, at);
    autoscaler = new AutoscalerService(
      fleet,
      { jobs: new JobScalingReader(redis, prefix), traffic: new LoadBalancerTraffic(redis, prefix) },
      new WorkerRemoval(fleet, retirement, createWorkerTokensService(db), removed),
      { states: new WorkerStateStore(prefixed), coldStarts: new ColdStarts(new ColdStartsRepository(db)) },
      () => clock.now(),
    );
  });

  afterAll(async () => {
    await engine?.close();
    prefixed?.disconnect();
    await stores?.close();
  });

  const stopped = () => published.filter((event) => event.type === 'worker.stopped');

  it('removes it on the first pass after idleTimeout: /health counts it neither idle nor running from then, and its usage ends then', async () => {
    const run = await engine.submit({
      endpointId, accountId, input: { text: 'one job' }, extra: {}, sync: false,
      policy: { executionTimeoutMs: 600_000, ttlMs: 86_400_000, lowPriority: false },
    }); // prettier-ignore
    await autoscaler.scaleAll();
    const [worker] = await db.pod.findMany({ where: { endpointId } });
    if (!worker) throw new Error('no worker was added for the queued job');
    // The reconciler saw its process start: its usage runs from then.
    await usage.observePod(usageShape(worker), true, new Date(clock.now()));
    expect(
      (await engine.take({ endpointId: endpointId, workerId: worker.id, count: 1, waitMs: 0 })).map((job) => job.id),
    ).toEqual([run.id]);
    await autoscaler.scaleAll();
    clock.advance(3_000);
    await engine.complete(endpointId, worker.id, run.id, { output: { done: true } });
    // The job.finished event, and the pass it triggers: the worker's idle time starts now.
    autoscaler.noteFinished(worker.id);
    await autoscaler.scaleAll();
    const finishedAt = clock.now();

    clock.set(finishedAt + IDLE_TIMEOUT_S * 1000 - 1);
    await engine.heartbeat(endpointId, worker.id);
    await autoscaler.scaleAll();
    expect(await db.pod.count({ where: { id: worker.id } })).toBe(1);
    expect(await engine.workers(endpointId)).toEqual({ idle: [worker.id], running: [] });
    expect(stopped()).toEqual([]);

    const removedAt = finishedAt + IDLE_TIMEOUT_S * 1000;
    clock.set(removedAt);
    await autoscaler.scaleAll();
    expect(await db.pod.count({ where: { id: worker.id } })).toBe(0);
    expect(await retirement.retiredAt(endpointId, worker.id)).toBe(removedAt);
    expect(await engine.workers(endpointId)).toEqual({ idle: [], running: [] });
    expect(stopped()).toEqual([
      expect.objectContaining({ workerId: worker.id, endpointId, occurredAt: new Date(removedAt).toISOString() }),
    ]);
    expect(await ledger.find(worker.id)).toBeNull();
    expect(await db.workerToken.count({ where: { workerId: worker.id, revokedAt: null } })).toBe(0);

    // Asked to stop, its process pings on for a moment: that neither counts it again nor bills it further.
    clock.advance(1_000);
    await engine.heartbeat(endpointId, worker.id);
    await autoscaler.scaleAll();
    expect(await engine.workers(endpointId)).toEqual({ idle: [], running: [] });
    expect(stopped()).toHaveLength(1);
  });

  it('passes skip an endpoint that stayed idle, and scale it up as soon as a job is queued', async () => {
    const template = await db.template.findFirstOrThrow({ where: { accountId } });
    const quiet = (
      await db.endpoint.create({
        data: { id: newId(), accountId, name: 'quiet', templateId: template.id, gpuTypeIds: [RTX], workersMax: 1 },
      })
    ).id;
    // The pass's per-endpoint step, spied on (it still runs): which endpoints each pass scaled.
    const scale = jest.spyOn(autoscaler as unknown as { scale(endpoint: { id: string }): Promise<void> }, 'scale');
    const scaledQuiet = () => scale.mock.calls.filter(([endpoint]) => endpoint.id === quiet).length;
    try {
      for (let pass = 0; pass < 3; pass++) await autoscaler.scaleAll();
      // Scaled once (its empty state published), then skipped while nothing changes.
      expect(scaledQuiet()).toBe(1);
      await engine.submit({
        endpointId: quiet, accountId, input: { text: 'wake up' }, extra: {}, sync: false,
        policy: { executionTimeoutMs: 600_000, ttlMs: 86_400_000, lowPriority: false },
      }); // prettier-ignore
      await autoscaler.scaleAll();
      expect(scaledQuiet()).toBe(2);
      expect(await db.pod.count({ where: { endpointId: quiet } })).toBe(1);
    } finally {
      scale.mockRestore();
    }
  });
});
