import type { ApiKeyDto } from '@runplane/contracts';
import runpodSdk from 'runpod-sdk';
import { getFreePorts, isProcessAlive, pollUntil, signalProcessGroup } from '@runplane/testing';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { createEchoEndpoint, RunnerHarness } from './test/runner-harness';

describe('npm start (smoke)', () => {
  const platform = new RunnerHarness('start-smoke');

  beforeAll(() => platform.setUp());
  afterAll(() => platform.tearDown());

  /**
   * The local driver end to end: a template whose start command runs the example worker, an endpoint with
   * workersMin 0, jobs submitted with RunPod's npm client. The scheduler starts a worker process for the queued
   * jobs, and ends it once it has been idle for the endpoint's idleTimeout.
   */
  async function runJobsOnLocalWorkers(gatewayPort: number, jobApiPort: number, secret: string): Promise<void> {
    const endpoint = await createEchoEndpoint(gatewayPort, secret, 0, { idleTimeout: 2 });
    const sdk = runpodSdk(secret, { baseUrl: `http://127.0.0.1:${jobApiPort}/v2` }).endpoint(endpoint.id);
    if (!sdk) throw new Error('runpod-sdk returned no endpoint');

    const accepted = await Promise.all(['one', 'two', 'three'].map((text) => sdk.run({ input: { text } })));
    const results = await Promise.all(
      accepted.map(({ id }) =>
        pollUntil(
          async () => {
            const status = (await sdk.status(id)) as unknown as { status: string; output?: unknown; workerId?: string };
            return status.status === 'IN_QUEUE' || status.status === 'IN_PROGRESS' ? undefined : status;
          },
          { timeoutMs: 120_000, intervalMs: 250, description: `job ${id} to finish on a local worker` },
        ),
      ),
    );
    expect(results.map((result) => result.status)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED']);
    expect(results.map((result) => (result.output as { echo: { text: string } }).echo.text)).toEqual([
      'one',
      'two',
      'three',
    ]);
    const workerId = results[0]?.workerId;
    expect(typeof workerId).toBe('string');
    expect(results.every((result) => result.workerId === workerId)).toBe(true);

    // Idle past idleTimeout: the scheduler ends the worker process, and /health counts no worker.
    await pollUntil(
      async () => {
        const health = (await sdk.health()) as unknown as { workers: Record<string, number> };
        return Object.values(health.workers).every((count) => count === 0) || undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, description: 'the idle worker to be scaled down' },
    );
    // /health counts the worker gone as soon as it is retired; its process ends just after. Wait for that too,
    // so the worker found next is the one the test means, not this one on its way out.
    await pollUntil(() => platform.workloads().every((record) => !isProcessAlive(record.pid)) || undefined, {
      timeoutMs: 30_000,
      intervalMs: 250,
      description: 'the retired worker process to end',
    });
  }

  it('starts the platform, serves the admin key, and leaves nothing behind on Ctrl-C, not even a worker', async () => {
    const ports = await getFreePorts(6);
    const group = await platform.start(ports);
    const gatewayPort = ports[0] ?? 0;
    expect(group.output()).toContain(`http://127.0.0.1:${gatewayPort}/v1`);
    expect(group.output()).toContain(`http://127.0.0.1:${ports[1] ?? 0}/v2`);

    const secret = platform.adminKey();
    expect(statSync(join(platform.stateDir, 'admin-key')).mode & 0o777).toBe(0o600);
    expect(group.output()).toContain(secret);
    const response = await fetch(`http://127.0.0.1:${gatewayPort}/v1/apikeys`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    const text = await response.text();
    expect(response.status).toBe(200);
    const keys = JSON.parse(text) as ApiKeyDto[];
    expect(Array.isArray(keys)).toBe(true);
    expect(keys.some((key) => key.scope === 'ALL' && secret.startsWith(key.prefix))).toBe(true);
    expect(text).not.toContain(secret);

    const pids = platform.readPids();
    expect(Object.keys(pids.record.apps).sort()).toEqual([
      'billing-aggregator',
      'gateway',
      'job-router',
      'scheduler',
      'volume-s3',
      'webhook-dispatcher',
    ]);
    expect(pids.all.every(isProcessAlive)).toBe(true);

    await runJobsOnLocalWorkers(gatewayPort, ports[1] ?? 0, secret);
    // A worker kept running (workersMin 1) when the platform stops: it runs in its own process group.
    await createEchoEndpoint(gatewayPort, secret, 1);
    const worker = await platform.runningWorker();

    // Like Ctrl-C in a terminal: the whole foreground group (npm, the runner, the apps) gets SIGINT.
    signalProcessGroup(group.pid, 'SIGINT');
    const exit = await group.exited;
    // npm re-raises the signal on itself once its script has finished, so it may report SIGINT.
    expect(exit.code === 0 || exit.signal === 'SIGINT').toBe(true);
    expect(group.output()).toContain('stopping (received SIGINT)');
    expect(group.output()).toContain(`stopped local workloads: ${worker.podId}`);
    expect(group.output()).toContain('stopped (exit code 0)');
    await platform.expectNothingLeft([...pids.all, worker.pid], ports);
    expect(platform.workloads().find((record) => record.podId === worker.podId)).toMatchObject({ phase: 'EXITED' });
  }, 300_000);

  it('reuses the kept admin key, restarts a killed app while the others run on, and stops after repeated crashes', async () => {
    const keptSecret = platform.adminKey();
    const ports = await getFreePorts(5);
    const jobApiPort = ports[1] ?? 0;
    const group = await platform.start(ports, {
      RUNPLANE_RESTART_BACKOFF_MS: '50',
      RUNPLANE_CRASH_LIMIT: '2',
      RUNPLANE_CRASH_WINDOW_MS: '3600000',
    });
    expect(platform.adminKey()).toBe(keptSecret);
    expect(group.output()).toContain(keptSecret);
    expect(group.output()).not.toContain('(new, kept in');

    const before = platform.readPids();
    const killed = before.record.apps['job-router'] ?? 0;
    process.kill(killed, 'SIGKILL');
    const after = await pollUntil(
      () => {
        const pids = platform.readPids();
        const restarted = pids.record.apps['job-router'];
        return restarted !== undefined && restarted !== killed ? pids : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100, description: 'pids.json to list a restarted job-router' },
    );
    // The job API answers again, from the new process.
    const ready = await pollUntil(
      async () => {
        const response = await fetch(`http://127.0.0.1:${jobApiPort}/readyz`);
        await response.body?.cancel();
        return response.status === 200;
      },
      { timeoutMs: 120_000, intervalMs: 250, ignoreErrors: true, description: 'the restarted job API to answer' },
    );
    expect(ready).toBe(true);
    expect(group.output()).toContain(
      'job-router exited unexpectedly (SIGKILL); restarting it in 50 ms (1 of 2 crashes within 3600000 ms)',
    );
    expect(group.output()).toContain(`restarted job-router (pid ${after.record.apps['job-router']})`);
    const { ['job-router']: _old, ...others } = before.record.apps;
    const { ['job-router']: restarted, ...othersAfter } = after.record.apps;
    expect(othersAfter).toEqual(others);
    expect([...Object.values(othersAfter), restarted ?? 0].every(isProcessAlive)).toBe(true);
    expect(group.child.exitCode).toBeNull();

    // A second crash within the window: the runner gives up, stops everything and says which app.
    process.kill(restarted ?? 0, 'SIGKILL');
    const exit = await group.exited;
    expect(exit.code).not.toBe(0);
    expect(group.output()).toContain(
      'job-router exited unexpectedly (SIGKILL): 2 crashes within 3600000 ms, giving up',
    );
    expect(group.output()).toContain('stopping (job-router crashed 2 times within 3600000 ms)');
    expect(group.output()).toContain('stopped (exit code 1)');
    await platform.expectNothingLeft([...before.all, ...after.all], ports);
  }, 300_000);
});
