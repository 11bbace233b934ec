// Serverless end to end on the local driver: RunPod's npm client submits jobs, the scheduler scales an endpoint's
// workers (examples/echo-worker processes with RunPod's worker environment) from 0 up on a burst and back to 0 once
// idle, never removes a busy worker, and never scales up for lowPriority jobs alone.
import { readFileSync } from 'node:fs';
import runpodSdk from 'runpod-sdk';
import { WorkerRetirement } from '@runplane/jobs';
import { ECHO_WORKER_TEMPLATE, isProcessAlive, pollUntil } from '@runplane/testing';
import { createQueueDelayEndpoint } from './echo-endpoint';
import { type PlatformHarness, startPlatform } from './harness';
import { processRecord, workloadProcesses } from './workloads';

type SdkEndpoint = NonNullable<ReturnType<ReturnType<typeof runpodSdk>['endpoint']>>;
type Status = {
  id: string;
  status: string;
  output?: { echo: Record<string, unknown>; workerId: string };
  workerId?: string;
  retries?: number;
};

const RTX = 'NVIDIA GeForce RTX 4090';

describe('autoscaling with the local driver and runpod-sdk', () => {
  let p: PlatformHarness;
  let endpointId: string;
  let sdk: SdkEndpoint;

  beforeAll(async () => {
    p = await startPlatform('sched-autoscale', {
      jobRouter: true,
      jobRouterEnv: { JOB_TAKE_WAIT_MS: '1000', JOB_HEARTBEAT_INTERVAL_MS: '2000', JOB_SWEEP_INTERVAL_MS: '500' },
    });
    const template = await p.v1('POST', '/templates', ECHO_WORKER_TEMPLATE);
    expect(template.status).toBe(200);
    endpointId = await createQueueDelayEndpoint(p.v1, template);
    const client = runpodSdk(p.secret, { baseUrl: `${p.jobApiUrl}/v2` }).endpoint(endpointId);
    if (!client) throw new Error('runpod-sdk returned no endpoint');
    sdk = client;
  }, 180_000);

  afterAll(async () => {
    await p?.close();
  }, 60_000);

  const workers = () => p.db.pod.findMany({ where: { endpointId } });
  const status = async (id: string): Promise<Status> => (await sdk.status(id)) as unknown as Status;
  const finished = (id: string) =>
    pollUntil(
      async () => {
        const answer = await status(id);
        return ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'].includes(answer.status) ? answer : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, description: `job ${id} to finish` },
    );

  async function passes(count: number): Promise<void> {
    for (let pass = 0; pass < count; pass += 1) {
      p.scheduler().loop.trigger();
      await p.scheduler().loop.settled();
    }
  }

  it('lowPriority jobs alone never scale up', async () => {
    for (let index = 0; index < 3; index += 1) {
      const response = await fetch(`${p.jobApiUrl}/v2/${endpointId}/run`, {
        method: 'POST',
        headers: { authorization: p.secret, 'content-type': 'application/json' },
        body: JSON.stringify({ input: { text: 'later' }, policy: { lowPriority: true } }),
      });
      expect(response.status).toBe(200);
    }
    await passes(5);
    expect(await workers()).toHaveLength(0);
    const purged = await fetch(`${p.jobApiUrl}/v2/${endpointId}/purge-queue`, {
      method: 'POST',
      headers: { authorization: p.secret },
    });
    expect(await purged.json()).toMatchObject({ removed: 3 });
  }, 60_000);

  it('scales 0 -> up on a burst; workers get RunPod worker env and a worker token; every job completes', async () => {
    const runs = await Promise.all(
      Array.from({ length: 4 }, (_, index) => sdk.run({ input: { text: `job ${index}`, sleepMs: 1500 } })),
    );
    const ids = runs.map((run) => (run as { id: string }).id);
    const first = await pollUntil(async () => (await workers())[0], { timeoutMs: 15_000, description: 'a worker Pod' });
    expect(first).toMatchObject({ gpuTypeId: RTX, gpuCount: 1, desiredStatus: 'RUNNING', dockerEntrypoint: ['node'] });

    const pid = await pollUntil(() => processRecord(p.stateDir, first.id)?.pid, {
      timeoutMs: 15_000,
      description: 'the worker process',
    });
    const env = Object.fromEntries(
      readFileSync(`/proc/${pid}/environ`, 'utf8')
        .split('\0')
        .filter(Boolean)
        .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
    );
    const root = `${p.jobApiUrl}/v2/${endpointId}`;
    expect(env).toMatchObject({
      RUNPOD_WEBHOOK_GET_JOB: `${root}/job-take/${first.id}?gpu=NVIDIA+GeForce+RTX+4090`,
      RUNPOD_WEBHOOK_POST_OUTPUT: `${root}/job-done/${first.id}/$ID?gpu=NVIDIA+GeForce+RTX+4090`,
      RUNPOD_WEBHOOK_POST_STREAM: `${root}/job-stream/${first.id}/$ID?gpu=NVIDIA+GeForce+RTX+4090`,
      RUNPOD_WEBHOOK_JOB_STREAM: `${root}/job-stream/${first.id}/$ID?gpu=NVIDIA+GeForce+RTX+4090`,
      RUNPOD_WEBHOOK_PING: `${root}/ping/${first.id}?gpu=NVIDIA+GeForce+RTX+4090`,
      RUNPOD_POD_ID: first.id,
      RUNPOD_ENDPOINT_ID: endpointId,
      RUNPOD_SKIP_AUTO_SYSTEM_CHECKS: 'true',
    });
    expect(env['RUNPOD_AI_API_KEY']).toMatch(/^rpw_/);
    expect(env['DATABASE_URL']).toBeUndefined();
    expect(await p.db.workerToken.count({ where: { endpointId, workerId: first.id, revokedAt: null } })).toBe(1);

    const results = await Promise.all(ids.map((id) => finished(id)));
    for (const [index, result] of results.entries()) {
      expect(result).toMatchObject({ status: 'COMPLETED', output: { echo: { text: `job ${index}`, sleepMs: 1500 } } });
    }
    const served = new Set(results.map((result) => result.output?.workerId));
    const created = await p.db.workerToken.findMany({ where: { endpointId }, distinct: ['workerId'] });
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(created.length).toBeLessThanOrEqual(2);
    for (const workerId of served) expect(created.map((token) => token.workerId)).toContain(workerId);
  }, 120_000);

  it('scales back to 0 after idleTimeout, ending every worker process, with one start and one stop event each', async () => {
    const seen = await p.db.workerToken.findMany({ where: { endpointId }, distinct: ['workerId'] });
    await pollUntil(async () => (await workers()).length === 0 || undefined, {
      timeoutMs: 30_000,
      description: 'the endpoint to scale to 0',
    });
    await pollUntil(() => seen.every((token) => workloadProcesses(token.workerId).length === 0) || undefined, {
      timeoutMs: 20_000,
      description: 'every worker process to end',
    });
    await passes(2);
    const events = await p.usageEvents();
    for (const { workerId } of seen) {
      const mine = [...events.values()]
        .filter((event) => event['workerId'] === workerId)
        .map((event) => event['type'])
        .sort();
      expect(mine).toEqual(['worker.started', 'worker.stopped']);
      expect(await p.db.workerToken.count({ where: { workerId, revokedAt: null } })).toBe(0);
    }
  }, 60_000);

  it('never removes a busy worker, even when its job runs longer than idleTimeout', async () => {
    const run = (await sdk.run({ input: { text: 'long', sleepMs: 5000 } })) as { id: string };
    const started = await pollUntil(
      async () => {
        const answer = await status(run.id);
        return answer.status === 'IN_PROGRESS' && answer.workerId ? answer : undefined;
      },
      { timeoutMs: 30_000, description: 'the long job to start' },
    );
    const workerId = started.workerId as string;
    const pid = processRecord(p.stateDir, workerId)?.pid ?? 0;
    // Throughout the job (well past idleTimeout = 2 s) the worker keeps its Pod row and its process.
    let checks = 0;
    while ((await status(run.id)).status === 'IN_PROGRESS') {
      await passes(1);
      expect(await p.db.pod.count({ where: { id: workerId } })).toBe(1);
      expect(isProcessAlive(pid)).toBe(true);
      checks += 1;
    }
    expect(checks).toBeGreaterThan(0);
    expect(await finished(run.id)).toMatchObject({ status: 'COMPLETED', workerId, retries: 0, output: { workerId } });
    await pollUntil(async () => (await workers()).length === 0 || undefined, {
      timeoutMs: 30_000,
      description: 'scale to 0 again',
    });
  }, 90_000);

  it('hands no job to a removed worker, even through a take it had parked before its removal', async () => {
    const warmUp = (await sdk.run({ input: { text: 'warm up' } })) as { id: string };
    const removedId = (await finished(warmUp.id)).workerId as string;
    // Takes as that worker, parked back to back across its removal (an ALL-scope key of the owner may act as any of
    // the endpoint's workers, and is not revoked with the worker's token).
    const hangUp = new AbortController();
    const handed: unknown[] = [];
    const takes = (async () => {
      while (!hangUp.signal.aborted) {
        const url = `${p.jobApiUrl}/v2/${endpointId}/job-take/${removedId}`;
        const response = await fetch(url, { headers: { authorization: p.secret }, signal: hangUp.signal }).catch(
          () => undefined,
        );
        if (response?.status === 200) handed.push(await response.json());
        else if (response) await response.arrayBuffer();
        else await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    let result: Status;
    try {
      await pollUntil(async () => (await workers()).length === 0 || undefined, {
        timeoutMs: 30_000,
        description: 'the idle worker to be removed',
      });
      // The only take parked when the job comes is the removed worker's: the job waits for a new worker instead.
      const run = (await sdk.run({ input: { text: 'after removal' } })) as { id: string };
      result = await finished(run.id);
    } finally {
      hangUp.abort();
      await takes;
    }
    expect(handed).toEqual([]);
    expect(result).toMatchObject({ status: 'COMPLETED', retries: 0, output: { echo: { text: 'after removal' } } });
    expect(result.workerId).not.toBe(removedId);
    await pollUntil(async () => (await workers()).length === 0 || undefined, {
      timeoutMs: 30_000,
      description: 'scale to 0 again',
    });
  }, 90_000);

  it('stops counting and billing an idle worker at its removal: /health right after it shows the worker neither idle nor running, and its usage ends at the retire time', async () => {
    const health = async () =>
      (
        (await (
          await fetch(`${p.jobApiUrl}/v2/${endpointId}/health`, { headers: { authorization: p.secret } })
        ).json()) as { workers: Record<string, number> }
      ).workers;
    const run = (await sdk.run({ input: { text: 'one job' } })) as { id: string };
    const workerId = (await finished(run.id)).workerId as string;
    const pid = processRecord(p.stateDir, workerId)?.pid ?? 0;
    await pollUntil(async () => (await p.db.pod.count({ where: { id: workerId } })) === 0 || undefined, {
      timeoutMs: 30_000,
      description: 'the idle worker to be removed',
    });
    // The very next read, while its process may still be stopping (and pinging with its token the job-router cached).
    expect(await health()).toMatchObject({ idle: 0, running: 0 });
    const retiredAt = await new WorkerRetirement(p.redis, p.prefix).retiredAt(endpointId, workerId);
    if (retiredAt === null) throw new Error(`worker ${workerId} was removed without being retired`);
    const stop = await pollUntil(
      async () =>
        [...(await p.usageEvents()).values()].find(
          (event) => event['workerId'] === workerId && event['type'] === 'worker.stopped',
        ),
      { timeoutMs: 15_000, description: "the removed worker's stop event" },
    );
    expect(stop['occurredAt']).toBe(new Date(retiredAt).toISOString());
    await pollUntil(() => !isProcessAlive(pid) || undefined, { timeoutMs: 15_000, description: 'its process to end' });
    await passes(2);
    expect(await health()).toMatchObject({ idle: 0, running: 0 });
    const mine = [...(await p.usageEvents()).values()]
      .filter((event) => event['workerId'] === workerId)
      .map((event) => event['type'])
      .sort();
    expect(mine).toEqual(['worker.started', 'worker.stopped']);
  }, 90_000);

  it('recycles a worker without the job-stop channel (RunPod worker SDK < 1.10) that goes on running a cancelled job', async () => {
    // Takes one job and works on it for ever, pinging with its id, and never asks job-stop.
    const oldWorker = [
      'const headers = { authorization: process.env.RUNPOD_AI_API_KEY };',
      "let held = '';",
      "setInterval(() => fetch(`${process.env.RUNPOD_WEBHOOK_PING}${held ? `&job_id=${held}` : ''}`, { headers }).catch(() => {}), 500);",
      '(async () => {',
      '  while (!held) {',
      '    const answer = await fetch(`${process.env.RUNPOD_WEBHOOK_GET_JOB}&job_in_progress=0`, { headers }).catch(() => null);',
      '    if (answer?.status === 200) held = (await answer.json()).id;',
      '  }',
      '})();',
    ].join('\n');
    const template = await p.v1('POST', '/templates', {
      name: 'old-sdk', imageName: 'runplane/old-sdk:1', isServerless: true, dockerEntrypoint: ['node'], dockerStartCmd: ['-e', oldWorker],
    }); // prettier-ignore
    const endpoint = await p.v1('POST', '/endpoints', {
      name: 'old-sdk', templateId: (template.body as { id: string }).id, gpuTypeIds: [RTX], workersMin: 1, workersMax: 1, idleTimeout: 600,
    }); // prettier-ignore
    const oldEndpointId = (endpoint.body as { id: string }).id;
    const client = runpodSdk(p.secret, { baseUrl: `${p.jobApiUrl}/v2` }).endpoint(oldEndpointId);
    if (!client) throw new Error('runpod-sdk returned no endpoint');
    const run = (await client.run({ input: { text: 'forever' } })) as { id: string };
    const taken = await pollUntil(
      async () => {
        const answer = (await client.status(run.id)) as unknown as Status;
        return answer.status === 'IN_PROGRESS' ? answer : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, description: 'the job to be taken' },
    );
    const workerId = taken.workerId as string;
    const pid = processRecord(p.stateDir, workerId)?.pid ?? 0;
    expect(isProcessAlive(pid)).toBe(true);
    expect(await client.cancel(run.id)).toMatchObject({ status: 'CANCELLED' });
    // The job engine finds its stop request unheeded after 3 heartbeat intervals (here 6 s): the worker is recycled.
    await pollUntil(async () => !(await p.db.pod.findUnique({ where: { id: workerId } })) || undefined, {
      timeoutMs: 30_000,
      description: 'the worker to be recycled',
    });
    await pollUntil(() => !isProcessAlive(pid) || undefined, { timeoutMs: 15_000, description: 'its process to end' });
    expect(await client.status(run.id)).toMatchObject({ status: 'CANCELLED' });
    await p.v1('DELETE', `/endpoints/${oldEndpointId}`);
  }, 90_000);
});
