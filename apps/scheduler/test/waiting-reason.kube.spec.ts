// Why a queued job waits, on Kubernetes (kwok): no capacity for the endpoint's GPU type, no worker allowed, worker pods
// crash-looping (with kubelet's reason), each given alike by /status, /health and v2 /workers; and a worker pod's cold
// start by phase, from its pod's conditions, its `Pulled` Event and container status to its first job, in order on its row and in the
// scheduler's histogram.
import { COLD_START_PHASES, type WaitingReasonDto } from '@runplane/contracts';
import { LABELS } from '@runplane/kube';
import { pollUntil } from '@runplane/testing';
import { H100, type KubePlatform, RTX, rtxPool, startKubePlatform } from './kube-platform';
import { crashLoopPod, KwokWorkers } from './kwok-workers';

const POOL = 'sched-kube-waiting';

type Answer = Record<string, unknown> & { waitingReason?: WaitingReasonDto };

describe('waiting reasons and cold starts on Kubernetes', () => {
  let k: KubePlatform;
  let templateId: string;
  const served: KwokWorkers[] = [];

  beforeAll(async () => {
    k = await startKubePlatform(POOL, [rtxPool(2)], { jobRouter: true, jobRouterEnv: { JOB_TAKE_WAIT_MS: '1000' } });
    const template = await k.p.v1('POST', '/templates', {
      name: 'echo',
      imageName: 'runplane/echo-worker:dev',
      isServerless: true,
      containerDiskInGb: 5,
    });
    templateId = (template.body as { id: string }).id;
  }, 240_000);

  afterAll(async () => {
    for (const workers of served) await workers.stop();
    await k?.close();
  }, 120_000);

  async function endpoint(name: string, settings: Record<string, unknown>): Promise<string> {
    const created = await k.p.v1('POST', '/endpoints', {
      name,
      templateId,
      gpuTypeIds: [RTX],
      gpuCount: 1,
      workersMin: 0,
      workersMax: 1,
      ...settings,
    });
    expect(created.status).toBe(200);
    return (created.body as { id: string }).id;
  }

  const jobApi = async (path: string, body?: unknown): Promise<Answer> => {
    const response = await fetch(`${k.p.jobApiUrl}/v2/${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: k.p.secret, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await response.json()) as Answer;
  };
  const v2Workers = async (endpointId: string): Promise<Answer> => {
    const response = await fetch(`${k.p.gatewayUrl}/v2/serverless/${endpointId}/workers`, {
      headers: { authorization: `Bearer ${k.p.secret}` },
    });
    return (await response.json()) as Answer;
  };

  /** Waits for a queued job's status to give `code`, with /health and v2 /workers giving the same reason. */
  async function waitsFor(endpointId: string, jobId: string, code: WaitingReasonDto['code']) {
    const words = (reason: WaitingReasonDto | undefined) => reason && { ...reason, at: undefined };
    return pollUntil(
      async () => {
        const status = await jobApi(`${endpointId}/status/${jobId}`);
        expect(status.status).toBe('IN_QUEUE');
        if (status.waitingReason?.code !== code) return undefined;
        const [health, workers] = await Promise.all([jobApi(`${endpointId}/health`), v2Workers(endpointId)]);
        const same = [health, workers].every(
          (answer) => JSON.stringify(words(answer.waitingReason)) === JSON.stringify(words(status.waitingReason)),
        );
        return same ? status.waitingReason : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, description: `job ${jobId} to wait with ${code} everywhere` },
    );
  }

  const submit = async (endpointId: string): Promise<string> =>
    String((await jobApi(`${endpointId}/run`, { input: {} })).id);

  it('no capacity: no node of the endpoint’s GPU type', async () => {
    const endpointId = await endpoint('h100', { gpuTypeIds: [H100] });
    const reason = await waitsFor(endpointId, await submit(endpointId), 'NO_CAPACITY');
    expect(reason.gpuTypeIds).toEqual([H100]);
    expect(reason.message).toMatch(new RegExp(`^No capacity for ${H100}: `));
  }, 60_000);

  it('maximum workers: an endpoint that allows none', async () => {
    const endpointId = await endpoint('none', { workersMax: 0 });
    expect(await waitsFor(endpointId, await submit(endpointId), 'MAX_WORKERS')).toMatchObject({ workersMax: 0 });
  }, 60_000);

  it('a worker pod’s cold start by phase, in order, on its row and in the histogram', async () => {
    const endpointId = await endpoint('cold', {});
    const workers = new KwokWorkers(k, endpointId);
    served.push(workers);
    const jobId = await submit(endpointId);
    // kwok runs no kubelet: the test posts the `Pulled` Event a kubelet would, once the worker pod runs, and starts
    // the worker only after the scheduler recorded the pull (a worker's first ping dates a pull never reported).
    const running = await pollUntil(
      async () => {
        const [worker] = await k.p.db.pod.findMany({ where: { endpointId } });
        const pod = worker && (await k.pod(worker.id));
        return worker && pod?.status?.containerStatuses?.[0]?.state?.running?.startedAt ? { worker, pod } : undefined;
      },
      { timeoutMs: 30_000, description: 'the worker pod to run' },
    );
    const started = new Date(running.pod.status?.containerStatuses?.[0]?.state?.running?.startedAt ?? 0);
    await k.kube.core.createNamespacedEvent({
      namespace: k.namespace,
      body: {
        metadata: { name: `${running.pod.metadata?.name}.pulled`, namespace: k.namespace },
        involvedObject: {
          kind: 'Pod',
          apiVersion: 'v1',
          namespace: k.namespace,
          name: running.pod.metadata?.name ?? '',
          uid: running.pod.metadata?.uid ?? '',
          fieldPath: 'spec.containers{workload}',
        },
        reason: 'Pulled',
        message: 'Container image "runplane/echo-worker:dev" already present on machine',
        type: 'Normal',
        source: { component: 'kubelet', host: running.pod.spec?.nodeName ?? '' },
        firstTimestamp: started,
        lastTimestamp: started,
        count: 1,
      },
    });
    await pollUntil(
      async () => {
        const worker = await k.p.db.pod.findUnique({ where: { id: running.worker.id } });
        return (worker?.coldStart as Record<string, string> | null)?.['imagePulled'] ?? undefined;
      },
      { timeoutMs: 20_000, description: 'the pull to be recorded from the Pulled Event' },
    );
    workers.start();
    await pollUntil(async () => (await jobApi(`${endpointId}/status/${jobId}`)).status === 'COMPLETED' || undefined, {
      timeoutMs: 60_000,
      description: 'the job to complete',
    });
    const row = await pollUntil(
      async () => {
        const [worker] = await k.p.db.pod.findMany({ where: { endpointId } });
        const phases = (worker?.coldStart ?? {}) as Record<string, string>;
        return COLD_START_PHASES.every((phase) => phases[phase] !== undefined) ? worker : undefined;
      },
      { timeoutMs: 20_000, description: 'every phase to be recorded' },
    );
    const coldStart = row.coldStart as Record<string, string>;
    expect(COLD_START_PHASES.filter((phase) => coldStart[phase] !== undefined)).toEqual(COLD_START_PHASES);
    const times = COLD_START_PHASES.map((phase) => Date.parse(coldStart[phase] ?? ''));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // The pod's own record, to the second: the phases read from it are its times (or the phase before's, if later).
    const pod = await k.pod(row.id);
    const scheduled = pod?.status?.conditions?.find((condition) => condition.type === 'PodScheduled');
    const podTime = new Date(scheduled?.lastTransitionTime ?? 0).getTime();
    expect(Date.parse(coldStart['scheduled'] ?? '')).toBe(Math.max(podTime, Date.parse(coldStart['placed'] ?? '')));
    // The pull is the Pulled Event's time, kept between the pod's scheduling and its container's start.
    const [scheduledAt, pulledAt, startedAt] = ['scheduled', 'imagePulled', 'containerStarted'].map((phase) =>
      Date.parse(coldStart[phase] ?? ''),
    );
    expect(pulledAt).toBe(Math.min(Math.max(started.getTime(), scheduledAt ?? 0), startedAt ?? 0));
    expect(scheduledAt).toBeLessThanOrEqual(pulledAt ?? 0);
    expect(pulledAt).toBeLessThanOrEqual(startedAt ?? 0);

    const metrics = await k.p.schedulerMetrics();
    const count = (phase: string) =>
      Number(
        new RegExp(`^runplane_worker_cold_start_seconds_count\\{[^}]*phase="${phase}"[^}]*\\} (\\S+)$`, 'm').exec(
          metrics,
        )?.[1],
      );
    for (const phase of COLD_START_PHASES.slice(1)) expect(count(phase)).toBeGreaterThanOrEqual(1);
    // Only this endpoint's worker ever took a job.
    expect(count('firstJob')).toBe(1);
  }, 120_000);

  it('crash loop: a worker pod in CrashLoopBackOff, with kubelet’s reason', async () => {
    const endpointId = await endpoint('crash', {});
    const jobId = await submit(endpointId);
    const pod = await pollUntil(
      async () => {
        const list = await k.kube.core.listNamespacedPod({
          namespace: k.namespace,
          labelSelector: `${LABELS.endpointId}=${endpointId}`,
        });
        return list.items.find((candidate) => candidate.status?.phase === 'Running');
      },
      { timeoutMs: 30_000, description: 'a running worker pod' },
    );
    await crashLoopPod(k, pod);
    const reason = await waitsFor(endpointId, jobId, 'CRASH_LOOP');
    expect(reason.exitReason).toBe('CrashLoopBackOff after 3 restarts (exit code 1)');
    expect(reason.message).toBe(
      'Workers are crash-looping (1 in a row): CrashLoopBackOff after 3 restarts (exit code 1)',
    );
  }, 90_000);
});
