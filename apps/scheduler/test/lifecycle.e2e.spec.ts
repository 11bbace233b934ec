// Pod lifecycle with the local driver: start / stop / restart / reset / terminate through the v1 API, the processes
// behind them, what GET /v1/pods/{id} shows, and the usage events (exactly one per transition).
import { isProcessAlive, pollUntil } from '@runplane/testing';
import { type PlatformHarness, startPlatform } from './harness';
import { processRecord, workloadProcesses } from './workloads';

type Pod = {
  id: string;
  desiredStatus: string;
  publicIp: string | null;
  portMappings: Record<string, number> | null;
  lastStartedAt: string | null;
};

describe('Pod lifecycle on the local driver', () => {
  let p: PlatformHarness;
  let podId: string;

  beforeAll(async () => {
    p = await startPlatform('sched-lifecycle');
  }, 180_000);

  afterAll(async () => {
    await p?.close();
  }, 60_000);

  const get = async (): Promise<Pod> => (await p.v1('GET', `/pods/${podId}`)).body as Pod;

  /** Waits until the Pod runs a live process of a new pid (not one of `previous`), and GET shows it reachable. */
  async function running(previous: number[] = []): Promise<number> {
    return pollUntil(
      async () => {
        const record = processRecord(p.stateDir, podId);
        const pod = await get();
        if (!record || record.phase !== 'RUNNING' || previous.includes(record.pid) || !isProcessAlive(record.pid))
          return undefined;
        return pod.publicIp === '127.0.0.1' ? record.pid : undefined;
      },
      { timeoutMs: 20_000, description: 'the Pod process to run' },
    );
  }

  async function eventIds(): Promise<string[]> {
    return [...(await p.usageEvents()).keys()].filter((id) => id.startsWith(`${podId}:`)).sort();
  }

  async function expectEvents(expected: string[]): Promise<void> {
    const sorted = expected.map((suffix) => `${podId}:${suffix}`).sort();
    await pollUntil(async () => JSON.stringify(await eventIds()) === JSON.stringify(sorted) || undefined, {
      timeoutMs: 10_000,
      description: `usage events ${expected.join(', ')}`,
    }).catch(async () => expect(await eventIds()).toEqual(sorted));
  }

  it('create starts a process and publishes pod.started once', async () => {
    const created = await p.v1('POST', '/pods', {
      name: 'lifecycle',
      imageName: 'runplane/sleeper:1',
      gpuTypeIds: ['NVIDIA GeForce RTX 4090'],
      gpuCount: 1,
      ports: ['8888/http'],
      dockerEntrypoint: ['node'],
      dockerStartCmd: ['-e', 'setInterval(() => {}, 1000)'],
    });
    expect(created.status).toBe(201);
    podId = (created.body as Pod).id;
    const pid = await running();
    expect(await get()).toMatchObject({
      desiredStatus: 'RUNNING',
      publicIp: '127.0.0.1',
      portMappings: { '8888': 8888 },
    });
    expect(workloadProcesses(podId)).toEqual([pid]);
    await expectEvents(['started:1']);
    const started = (await p.usageEvents()).get(`${podId}:started:1`);
    expect(started).toMatchObject({
      type: 'pod.started',
      podId,
      gpuTypeId: 'NVIDIA GeForce RTX 4090',
      gpuCount: 1,
      cloudType: 'SECURE',
      costPerHr: '0.690000',
    });
  }, 60_000);

  it('stop ends the process (SIGTERM) and keeps the Pod; start runs a new one', async () => {
    const pid = processRecord(p.stateDir, podId)?.pid ?? 0;
    expect((await p.v1('POST', `/pods/${podId}/stop`)).body).toMatchObject({ desiredStatus: 'EXITED' });
    await pollUntil(() => !isProcessAlive(pid) || undefined, { timeoutMs: 15_000, description: 'the process to end' });
    await pollUntil(async () => (await get()).publicIp === null || undefined, {
      timeoutMs: 10_000,
      description: 'GET to show it stopped',
    });
    expect(await get()).toMatchObject({ desiredStatus: 'EXITED', portMappings: null });
    await expectEvents(['started:1', 'stopped:1']);

    expect((await p.v1('POST', `/pods/${podId}/start`)).body).toMatchObject({ desiredStatus: 'RUNNING' });
    const next = await running([pid]);
    expect(workloadProcesses(podId)).toEqual([next]);
    await expectEvents(['started:1', 'stopped:1', 'started:2']);
  }, 60_000);

  it('restart and reset replace the process; each is a stop and a start for billing', async () => {
    const before = processRecord(p.stateDir, podId)?.pid ?? 0;
    const startedBefore = (await get()).lastStartedAt;
    await p.v1('POST', `/pods/${podId}/restart`);
    const restarted = await running([before]);
    expect(isProcessAlive(before)).toBe(false);
    expect((await get()).lastStartedAt).not.toBe(startedBefore);
    await expectEvents(['started:1', 'stopped:1', 'started:2', 'stopped:2', 'started:3']);

    await p.v1('POST', `/pods/${podId}/reset`);
    const reset = await running([before, restarted]);
    expect(workloadProcesses(podId)).toEqual([reset]);
    await expectEvents(['started:1', 'stopped:1', 'started:2', 'stopped:2', 'started:3', 'stopped:3', 'started:4']);
  }, 60_000);

  it('terminate removes the process and its pid file and publishes pod.terminated once', async () => {
    const pid = processRecord(p.stateDir, podId)?.pid ?? 0;
    expect((await p.v1('DELETE', `/pods/${podId}`)).status).toBe(204);
    await pollUntil(() => (!isProcessAlive(pid) && processRecord(p.stateDir, podId) === null) || undefined, {
      timeoutMs: 15_000,
      description: 'the process and its record to go',
    });
    expect((await p.v1('GET', `/pods/${podId}`)).status).toBe(404);
    await expectEvents([
      'started:1',
      'stopped:1',
      'started:2',
      'stopped:2',
      'started:3',
      'stopped:3',
      'started:4',
      'stopped:4',
      'terminated:4',
    ]);
    const terminated = (await p.usageEvents()).get(`${podId}:terminated:4`);
    expect(terminated).toMatchObject({ type: 'pod.terminated', podId, containerDiskInGb: 50, volumeInGb: 20 });
  }, 60_000);

  it('network volume create, resize and delete are published once each', async () => {
    const created = await p.v1('POST', '/networkvolumes', { name: 'data', size: 10, dataCenterId: 'EU-RO-1' });
    expect(created.status).toBe(200);
    const volumeId = (created.body as { id: string }).id;
    const volumeEvents = async (): Promise<string[]> =>
      [...(await p.usageEvents()).keys()].filter((id) => id.startsWith(volumeId)).sort();
    await pollUntil(async () => (await volumeEvents()).length === 1 || undefined, {
      timeoutMs: 10_000,
      description: 'volume.created',
    });
    expect((await p.v1('PATCH', `/networkvolumes/${volumeId}`, { size: 20 })).status).toBe(200);
    await pollUntil(async () => (await volumeEvents()).length === 2 || undefined, {
      timeoutMs: 10_000,
      description: 'volume.resized',
    });
    expect((await p.v1('DELETE', `/networkvolumes/${volumeId}`)).status).toBe(204);
    await pollUntil(async () => (await volumeEvents()).length === 3 || undefined, {
      timeoutMs: 10_000,
      description: 'volume.deleted',
    });
    const events = await p.usageEvents();
    expect(await volumeEvents()).toEqual([`${volumeId}:created:0`, `${volumeId}:deleted:1`, `${volumeId}:resized:1`]);
    expect(events.get(`${volumeId}:resized:1`)).toMatchObject({
      type: 'volume.resized',
      sizeGb: 20,
      dataCenterId: 'EU-RO-1',
    });
    expect(events.get(`${volumeId}:deleted:1`)).toMatchObject({ type: 'volume.deleted', sizeGb: 20 });
  }, 60_000);
});
