import { isProcessAlive, pollUntil } from '@runplane/testing';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProcessRecords } from '../../apps/scheduler/src/drivers/local/process-records';
import { STOPPED_WITH_PLATFORM } from '../../apps/scheduler/src/drivers/local/stop-recorded';
import { stopLeftovers } from './leftovers';
import { findFreePort, redisAnswers } from './net';
import { ServiceUnavailableError } from './services';
import { writePids } from './state';

const IDLE = 'setInterval(() => undefined, 1000)';

describe('stopLeftovers', () => {
  let stateDir: string;
  const children: ChildProcess[] = [];
  const logs: string[] = [];

  /** A process whose command line ends with `marker`, as a leftover app or runner would have it. */
  function idleProcess(marker: string, options: { detached?: boolean; env?: Record<string, string> } = {}): number {
    const child = spawn(process.execPath, ['-e', IDLE, marker], {
      stdio: 'ignore',
      ...options,
      env: { ...process.env, ...options.env },
    });
    children.push(child);
    if (child.pid === undefined) throw new Error('could not spawn');
    return child.pid;
  }

  function options(): Parameters<typeof stopLeftovers>[0] {
    return { stateDir, schedulerStateDir: join(stateDir, 'scheduler'), graceMs: 2_000, log: (line) => logs.push(line) };
  }

  beforeEach(() => {
    stateDir = mkdtempSync(join(tmpdir(), 'runplane-leftovers-'));
    logs.length = 0;
  });

  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('stops the apps a dead runner left, but not a process that merely reuses a recorded pid', async () => {
    const gateway = idleProcess(join('/repo', 'apps', 'gateway', 'src', 'main.ts'));
    const stranger = idleProcess('something-else.js');
    writePids(stateDir, { runner: 999_999_999, apps: { gateway, scheduler: stranger }, services: {}, ports: {} });

    await stopLeftovers(options());
    await pollUntil(() => !isProcessAlive(gateway), { description: 'the leftover gateway to be reaped' });
    expect(isProcessAlive(stranger)).toBe(true);
    expect(logs).toEqual([`stopping what an earlier run left running: gateway (pid ${gateway})`]);
  });

  it('stops a server it started by pid and port, and leaves one on another port (a reused pid) alone', async () => {
    const [port, otherPort] = [await findFreePort(), await findFreePort()];
    const redis = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    children.push(redis);
    await pollUntil(() => redisAnswers('127.0.0.1', port), {
      timeoutMs: 10_000,
      description: 'redis-server to answer',
    });
    const other = idleProcess(`postgres -D /var/lib/postgresql -p ${otherPort}`);
    writePids(stateDir, {
      runner: 999_999_999,
      apps: {},
      services: { redis: redis.pid ?? 0, postgres: other },
      ports: { redis: port, postgres: port },
    });

    await stopLeftovers(options());
    await pollUntil(() => !isProcessAlive(redis.pid ?? 0), { description: 'the leftover redis-server to be reaped' });
    expect(isProcessAlive(other)).toBe(true);
    expect(logs).toEqual([`stopping what an earlier run left running: redis (pid ${redis.pid})`]);
  });

  it('stops a workload process left running and marks its pid file EXITED', async () => {
    const pid = idleProcess('worker.ts', { detached: true, env: { RUNPLANE_WORKLOAD_ID: 'pod1' } });
    const records = new ProcessRecords(join(stateDir, 'scheduler'));
    const record = {
      podId: 'pod1',
      generation: 1,
      pid,
      phase: 'RUNNING' as const,
      startedAt: new Date().toISOString(),
      finishedAt: null,
      machineName: 'local-1',
      ports: [],
      reason: null,
    };
    records.write(record);

    await stopLeftovers(options());
    await pollUntil(() => !isProcessAlive(pid), { description: 'the leftover worker to be reaped' });
    expect(records.read('pod1')).toMatchObject({ phase: 'EXITED', reason: STOPPED_WITH_PLATFORM });
    expect(logs).toEqual(['stopped local workloads an earlier run left running: pod1']);
  });

  it('refuses to start while the recorded runner still runs', async () => {
    const runner = idleProcess(join('/repo', 'tools', 'platform', 'start.ts'));
    const gateway = idleProcess(join('/repo', 'apps', 'gateway', 'src', 'main.ts'));
    writePids(stateDir, { runner, apps: { gateway }, services: {}, ports: {} });

    await expect(stopLeftovers(options())).rejects.toThrow(ServiceUnavailableError);
    await expect(stopLeftovers(options())).rejects.toThrow(`another npm start (pid ${runner}) is using ${stateDir}`);
    expect(isProcessAlive(gateway)).toBe(true);
  });
});
