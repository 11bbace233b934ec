import { seedCatalog } from '@runplane/catalog';
import { newId } from '@runplane/db';
import { createAccountsServices } from '@runplane/accounts';
import { buildService, type NestFastifyApplication } from '@runplane/http';
import {
  activeTraceparent,
  recordSpans,
  type RecordedSpan,
  type SpanRecorder,
  traceIdOf,
  withSpan,
} from '@runplane/observability';
import { createTestStores, pollUntil, TEST_REDIS_URL, type TestStores } from '@runplane/testing';
import { SchedulerPlacementClient } from '../../apps/gateway/src/v1/pods/scheduler-placement.client';
import { schedulerEnvSchema } from '../../apps/scheduler/src/config';
import { SchedulerModule } from '../../apps/scheduler/src/scheduler.module';
import { startPlacementListener } from '../../apps/scheduler/src/start-scheduler';

const H100 = 'NVIDIA H100 80GB HBM3';
const MACHINES = [{ name: 'h100-a', gpuProduct: 'NVIDIA-H100-80GB-HBM3', gpuCount: 1, dataCenterId: 'EU-RO-1' }];

/** The gateway's placement call to the scheduler (Nest microservices over Redis) is one trace. */
describe('placement RPC trace', () => {
  let recorder: SpanRecorder;
  let stores: TestStores;
  let scheduler: NestFastifyApplication;
  let client: SchedulerPlacementClient;
  let accountId: string;

  beforeAll(async () => {
    recorder = recordSpans();
    stores = await createTestStores('placement-trace');
    await seedCatalog(stores.db);
    accountId = (await createAccountsServices(stores.db).accounts.create({ name: 'placed' })).id;
    const config = schedulerEnvSchema.parse({
      DATABASE_URL: stores.database.url,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: stores.prefix,
      LOG_LEVEL: 'silent',
      SCHEDULER_STATE_DIR: stores.stateDir,
      SCHEDULER_TICK_MS: '250',
      SCHEDULER_LOCAL_MACHINES: JSON.stringify(MACHINES),
    });
    scheduler = await buildService({
      serviceName: 'scheduler',
      errorStyle: 'v1',
      config,
      module: (infrastructure) => SchedulerModule.forRoot(infrastructure, config),
    });
    await startPlacementListener(scheduler, config);
    await scheduler.init();
    await pollUntil(async () => (await stores.db.machine.count({ where: { ready: true } })) === 1 || undefined, {
      timeoutMs: 20_000,
      description: 'the inventory to be mirrored',
    });
    client = new SchedulerPlacementClient(TEST_REDIS_URL, stores.prefix);
  }, 60_000);
  afterAll(async () => {
    await client?.onApplicationShutdown();
    await scheduler?.close();
    await stores?.close();
    await recorder?.stop();
  });

  const request = () => ({
    podId: newId(),
    accountId,
    computeType: 'GPU' as const,
    gpuTypeIds: [H100],
    gpuTypePriority: 'custom' as const,
    gpuCount: 1,
    cloudType: 'ALL' as const,
    dataCenterIds: [],
    volumeDataCenterId: null,
    cpuFlavorIds: [],
    vcpuCount: 0,
    memoryInGb: 0,
  });

  /** The gateway's and the scheduler's placement spans of the trace `traceparent` names. */
  async function placementSpans(traceparent: string | undefined): Promise<RecordedSpan[]> {
    const traceId = traceIdOf(traceparent);
    return pollUntil(
      async () => {
        const spans = (await recorder.spans()).filter((s) => s.traceId === traceId && s.name === 'placement.reserve');
        return spans.length === 2 ? spans : undefined;
      },
      { description: 'both placement spans ended' },
    );
  }

  it("continues the gateway's trace in the scheduler: its placement span is the child of the gateway's call", async () => {
    const { reply, traceparent } = await withSpan('POST /v1/pods', async () => ({
      reply: await client.reserve(request()),
      traceparent: activeTraceparent(),
    }));
    expect(reply).toMatchObject({ machineId: 'h100-a' });
    const spans = await placementSpans(traceparent);
    const call = spans.find((span) => span.kind === 2);
    const served = spans.find((span) => span.kind === 1);
    expect(call?.parentSpanId).toBe(traceparent?.split('-')[2]);
    expect(served?.parentSpanId).toBe(call?.spanId);
    expect(served?.failed).toBe(false);
  });

  it('traces a refused placement (no capacity left) the same way', async () => {
    const { reply, traceparent } = await withSpan('POST /v1/pods', async () => ({
      reply: await client.reserve(request()),
      traceparent: activeTraceparent(),
    }));
    expect(reply).toMatchObject({ placed: false });
    const spans = await placementSpans(traceparent);
    const call = spans.find((span) => span.kind === 2);
    expect(spans.find((span) => span.kind === 1)?.parentSpanId).toBe(call?.spanId);
    expect(call?.parentSpanId).toBe(traceparent?.split('-')[2]);
  });
});
