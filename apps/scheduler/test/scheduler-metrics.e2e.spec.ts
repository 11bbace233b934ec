// The scheduler's /metrics after a scripted workload on the local driver: an endpoint scales from 0 for a job and
// back to 0 once idle (its decisions, workers by state, Pods by status), Pods the gateway asks for that nothing fits
// (placement failures by reason), and the leader's passes.
import { ECHO_WORKER_TEMPLATE, pollUntil } from '@runplane/testing';
import { createQueueDelayEndpoint } from './echo-endpoint';
import { type PlatformHarness, startPlatform } from './harness';

const H100 = 'NVIDIA H100 80GB HBM3';

/** The value of the first sample of `name` whose labels include `labels`, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (match?.[1] === name && wanted.every((pair) => (match[2] ?? '').split(',').includes(pair)))
      return Number(match[3]);
  }
  return undefined;
}

describe('scheduler metrics after a scripted workload', () => {
  let p: PlatformHarness;
  let endpointId: string;

  beforeAll(async () => {
    p = await startPlatform('sched-metrics', {
      jobRouter: true,
      jobRouterEnv: { JOB_TAKE_WAIT_MS: '1000', JOB_HEARTBEAT_INTERVAL_MS: '2000', JOB_SWEEP_INTERVAL_MS: '500' },
    });
    const template = await p.v1('POST', '/templates', ECHO_WORKER_TEMPLATE);
    expect(template.status).toBe(200);
    // One worker at most: a worker slow to start (a busy machine) would otherwise let the 1-s queue delay add a second.
    endpointId = await createQueueDelayEndpoint(p.v1, template, { workersMax: 1 });
  }, 180_000);

  afterAll(async () => {
    await p?.close();
  }, 60_000);

  const jobApi = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${p.jobApiUrl}/v2/${endpointId}/${path}`, {
      method,
      headers: { authorization: p.secret, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return (await response.json()) as Record<string, unknown>;
  };
  const scraped = (description: string, ready: (text: string) => boolean) =>
    pollUntil(
      async () => {
        const text = await p.schedulerMetrics();
        return ready(text) && text;
      },
      { timeoutMs: 60_000, intervalMs: 200, description },
    );
  const ep = () => ({ endpoint: endpointId, service: 'scheduler' });

  it('counts a scale from 0 and back to 0, and reports the worker and its Pod while it runs', async () => {
    const job = await jobApi('POST', 'run', { input: { text: 'metrics', sleepMs: 3000 } });
    const running = await scraped(
      'the worker running its job',
      (text) => sample(text, 'runplane_workers', { ...ep(), state: 'running' }) === 1,
    );
    expect(sample(running, 'runplane_pods', { desired: 'RUNNING', observed: 'RUNNING' })).toBe(1);
    expect(
      sample(running, 'runplane_autoscaler_decisions_total', {
        direction: 'up',
        reason: 'scale_from_zero',
        type: 'queue',
      }),
    ).toBe(1);
    await pollUntil(async () => (await jobApi('GET', `status/${String(job['id'])}`))['status'] === 'COMPLETED', {
      timeoutMs: 60_000,
      description: 'the job to complete',
    });

    // idleTimeout is 2 s: the worker goes, and with it the endpoint's worker series.
    const drained = await scraped(
      'the idle worker removed',
      (text) =>
        sample(text, 'runplane_autoscaler_decisions_total', { direction: 'down', reason: 'idle_timeout' }) === 1,
    );
    await pollUntil(async () => (await p.db.pod.count({ where: { endpointId, desiredStatus: 'RUNNING' } })) === 0, {
      description: 'no worker meant to run',
    });
    const after = await p.schedulerMetrics();
    expect(sample(after, 'runplane_workers', ep())).toBeUndefined();
    expect(sample(drained, 'runplane_autoscaler_decisions_total', { direction: 'up' })).toBe(1);
    expect(await p.db.workerToken.count({ where: { endpointId } })).toBe(1);
  }, 120_000);

  it('counts Pods refused for want of GPUs or of the data center asked for, by reason', async () => {
    const create = (extra: Record<string, unknown>) =>
      p.v1('POST', '/pods', { name: 'refused', imageName: 'runpod/base:0.1', gpuTypeIds: [H100], ...extra });
    // The one H100 machine has 8 GPUs: the second Pod of 8 finds none.
    expect((await create({ gpuCount: 8 })).status).toBe(201);
    const refused = await create({ gpuCount: 8 });
    expect(refused.status).toBe(503);
    expect((await create({ gpuCount: 1, dataCenterIds: ['US-GA-1'] })).status).toBe(503);
    const text = await p.schedulerMetrics();
    expect(sample(text, 'runplane_placement_failures_total', { reason: 'no_capacity', kind: 'pod' })).toBe(1);
    expect(sample(text, 'runplane_placement_failures_total', { reason: 'data_center', kind: 'pod' })).toBe(1);
  }, 60_000);

  it('times the leader passes and reports the leadership', async () => {
    p.scheduler().loop.trigger();
    await p.scheduler().loop.settled();
    const text = await p.schedulerMetrics();
    expect(sample(text, 'runplane_scheduler_leader', { service: 'scheduler' })).toBe(1);
    expect(sample(text, 'runplane_scheduler_pass_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThan(0);
    expect(sample(text, 'runplane_scheduler_pass_duration_seconds_count', { outcome: 'failed' })).toBeUndefined();
    // The Kubernetes metrics are the Kubernetes driver's (libs/kube/src/observer.kube.spec.ts counts them).
    expect(text).not.toMatch(/^runplane_kube_requests_total\{/m);
  }, 60_000);
});
