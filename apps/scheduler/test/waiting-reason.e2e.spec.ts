// Why a queued job waits, on the local driver: for each cause the scheduler publishes the endpoint's reason and a
// queued job's /status, the endpoint's /health and v2 /serverless/{id}/workers give the same one. A worker that takes a
// job records its cold start by phase, in order, on its row, in v2 /workers and in the scheduler's histogram.
import { COLD_START_PHASES, type WaitingReasonDto } from '@runplane/contracts';
import { ECHO_WORKER_TEMPLATE, pollUntil } from '@runplane/testing';
import { type PlatformHarness, startPlatform } from './harness';

type Answer = Record<string, unknown> & { waitingReason?: WaitingReasonDto };

describe('waiting reasons and cold starts on the local driver', () => {
  let p: PlatformHarness;

  beforeAll(async () => {
    p = await startPlatform('sched-waiting', { jobRouter: true, jobRouterEnv: { JOB_TAKE_WAIT_MS: '1000' } });
  }, 180_000);

  afterAll(async () => {
    await p?.close();
  }, 60_000);

  async function endpoint(name: string, command: string[], settings: Record<string, unknown>): Promise<string> {
    const template = await p.v1('POST', '/templates', {
      name,
      imageName: `runplane/${name}:1`,
      isServerless: true,
      dockerEntrypoint: ['node'],
      dockerStartCmd: command,
    });
    const created = await p.v1('POST', '/endpoints', {
      name,
      templateId: (template.body as { id: string }).id,
      gpuTypeIds: ['NVIDIA GeForce RTX 4090'],
      workersMin: 0,
      workersMax: 1,
      ...settings,
    });
    expect(created.status).toBe(200);
    return (created.body as { id: string }).id;
  }

  const jobApi = async (path: string, body?: unknown): Promise<Answer> => {
    const response = await fetch(`${p.jobApiUrl}/v2/${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: p.secret, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await response.json()) as Answer;
  };
  const v2Workers = async (endpointId: string): Promise<Answer> => {
    const response = await fetch(`${p.gatewayUrl}/v2/serverless/${endpointId}/workers`, {
      headers: { authorization: `Bearer ${p.secret}` },
    });
    expect(response.status).toBe(200);
    return (await response.json()) as Answer;
  };

  /**
   * Submits a job, then waits for its status to give `code`, with /health and v2 /workers giving the same reason (the
   * scheduler may publish a newer one between the three reads while workers start: then they are read again).
   */
  async function waitsFor(endpointId: string, code: WaitingReasonDto['code'], input: Record<string, unknown> = {}) {
    const { id } = await jobApi(`${endpointId}/run`, { input: {}, ...input });
    const words = (reason: WaitingReasonDto | undefined) => reason && { ...reason, at: undefined };
    return pollUntil(
      async () => {
        p.scheduler().loop.trigger();
        const status = await jobApi(`${endpointId}/status/${String(id)}`);
        expect(status.status).toBe('IN_QUEUE');
        if (status.waitingReason?.code !== code) return undefined;
        const [health, workers] = await Promise.all([jobApi(`${endpointId}/health`), v2Workers(endpointId)]);
        const same = [health, workers].every(
          (answer) => JSON.stringify(words(answer.waitingReason)) === JSON.stringify(words(status.waitingReason)),
        );
        return same ? status.waitingReason : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, description: `job ${String(id)} to wait with ${code} everywhere` },
    );
  }

  it('low priority: lowPriority jobs alone start no worker', async () => {
    const endpointId = await endpoint('low', ['-e', 'setInterval(() => {}, 1000)'], {});
    const reason = await waitsFor(endpointId, 'LOW_PRIORITY', { policy: { lowPriority: true } });
    expect(reason.message).toBe('Only low-priority jobs are queued: they never start a worker');
  }, 60_000);

  it('maximum workers: an endpoint that allows none', async () => {
    const endpointId = await endpoint('none', ['-e', 'setInterval(() => {}, 1000)'], { workersMax: 0 });
    expect(await waitsFor(endpointId, 'MAX_WORKERS')).toMatchObject({ workersMax: 0 });
  }, 60_000);

  it('no capacity: a GPU type no machine has', async () => {
    const endpointId = await endpoint('a40', ['-e', 'setInterval(() => {}, 1000)'], { gpuTypeIds: ['NVIDIA A40'] });
    const reason = await waitsFor(endpointId, 'NO_CAPACITY');
    expect(reason.gpuTypeIds).toEqual(['NVIDIA A40']);
    expect(reason.message).toMatch(/^No capacity for NVIDIA A40: /);
  }, 60_000);

  it('workers starting: a worker that never pings waits with its container started', async () => {
    const endpointId = await endpoint('mute', ['-e', 'setInterval(() => {}, 1000)'], {});
    const reason = await pollUntil(
      async () => {
        const waiting = await waitsFor(endpointId, 'WORKERS_STARTING');
        return waiting.phase === 'containerStarted' ? waiting : undefined;
      },
      { timeoutMs: 30_000, description: 'the starting worker to reach containerStarted' },
    );
    expect(reason.message).toBe('1 worker(s) starting: container started, waiting for its first ping');
    const [worker] = await p.db.pod.findMany({ where: { endpointId } });
    expect(Object.keys(worker?.coldStart as object).sort()).toEqual(['containerStarted', 'placed']);
  }, 90_000);

  it('crash loop: workers that keep exiting, with their exit reason', async () => {
    const endpointId = await endpoint('crash', ['-e', 'process.exit(3)'], {});
    const reason = await waitsFor(endpointId, 'CRASH_LOOP');
    expect(reason.exitReason).toBe('Exit code 3');
    expect(reason.message).toMatch(/^Workers are crash-looping \(\d+ in a row\): Exit code 3$/);
  }, 60_000);

  it('records a worker’s cold start by phase, in order, on its row, in v2 /workers and in the histogram', async () => {
    const template = await p.v1('POST', '/templates', { ...ECHO_WORKER_TEMPLATE, name: 'echo-cold' });
    const created = await p.v1('POST', '/endpoints', {
      name: 'echo-cold',
      templateId: (template.body as { id: string }).id,
      gpuTypeIds: ['NVIDIA GeForce RTX 4090'],
      workersMin: 0,
      workersMax: 1,
    });
    const endpointId = (created.body as { id: string }).id;
    const { id } = await jobApi(`${endpointId}/runsync`, { input: { text: 'cold' } });
    await pollUntil(
      async () => ((await jobApi(`${endpointId}/status/${String(id)}`)).status === 'COMPLETED' ? true : undefined),
      { timeoutMs: 60_000, intervalMs: 200, description: 'the job to complete' },
    );
    const row = await pollUntil(
      async () => {
        const [worker] = await p.db.pod.findMany({ where: { endpointId } });
        return (worker?.coldStart as Record<string, string> | null)?.['firstJob'] ? worker : undefined;
      },
      { timeoutMs: 20_000, description: 'the first job to be recorded' },
    );
    const coldStart = row.coldStart as Record<string, string>;
    // The local driver has no pod scheduling or image pull; the phases it has come in order.
    const phases = COLD_START_PHASES.filter((phase) => coldStart[phase] !== undefined);
    expect(phases).toEqual(['placed', 'containerStarted', 'firstPing', 'firstJob']);
    const times = phases.map((phase) => Date.parse(coldStart[phase] ?? ''));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(coldStart['placed']).toBe(row.createdAt.toISOString());

    const workers = (await v2Workers(endpointId)).workers as { id: string; coldStart?: unknown }[];
    expect(workers.find((worker) => worker.id === row.id)?.coldStart).toEqual(coldStart);

    // Only this endpoint's worker ever pinged and took a job: those series hold its phases alone.
    const metrics = await p.schedulerMetrics();
    const sample = (name: string, phase: string) =>
      Number(new RegExp(`^${name}\\{[^}]*phase="${phase}"[^}]*\\} (\\S+)$`, 'm').exec(metrics)?.[1]);
    const seconds = (from: string, to: string) =>
      (Date.parse(coldStart[to] ?? '') - Date.parse(coldStart[from] ?? '')) / 1000;
    expect(sample('runplane_worker_cold_start_seconds_count', 'firstPing')).toBe(1);
    expect(sample('runplane_worker_cold_start_seconds_count', 'firstJob')).toBe(1);
    // Each phase counts from the one before it that was known then: the first job from the first ping.
    expect(sample('runplane_worker_cold_start_seconds_sum', 'firstJob')).toBeCloseTo(
      seconds('firstPing', 'firstJob'),
      3,
    );
    expect(sample('runplane_worker_cold_start_seconds_sum', 'firstPing')).toBeLessThanOrEqual(
      seconds('placed', 'firstPing') + 0.001,
    );
  }, 120_000);
});
