// `npm start` stops the local driver's processes with the platform (stopRecordedWorkloads, once the scheduler is
// down). The next scheduler starts a wanted Pod again, and billing counts the time it was stopped as stopped.
import { isProcessAlive, pollUntil } from '@runplane/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { STOPPED_WITH_PLATFORM, stopRecordedWorkloads } from '../src/drivers/local/stop-recorded';
import { type PlatformHarness, startPlatform } from './harness';

interface Record {
  pid: number;
  phase: string;
  finishedAt: string | null;
  reason: string | null;
}

describe('local workloads stopped with the platform', () => {
  let p: PlatformHarness;

  beforeAll(async () => {
    p = await startPlatform('platform-stop');
  }, 180_000);

  afterAll(async () => {
    await p?.close();
  }, 60_000);

  const record = (podId: string): Record => JSON.parse(readFileSync(join(p.stateDir, 'workloads', `${podId}.json`), 'utf8')) as Record;

  it('runs the Pod again at the next start, billed as stopped from when the platform stopped it', async () => {
    const created = await p.v1('POST', '/pods', {
      name: 'kept',
      imageName: 'runplane/sleeper:1',
      gpuTypeIds: ['NVIDIA H100 80GB HBM3'],
      gpuCount: 1,
      dockerEntrypoint: ['node'],
      dockerStartCmd: ['-e', 'setInterval(() => {}, 1000)'],
    });
    const id = (created.body as { id: string }).id;
    const first = await pollUntil(() => {
      const current = record(id);
      return current.phase === 'RUNNING' && isProcessAlive(current.pid) ? current.pid : undefined;
    }, { timeoutMs: 20_000, ignoreErrors: true, description: 'the Pod to run' });
    await pollUntil(async () => (await p.usageEvents()).has(`${id}:started:1`) || undefined, { timeoutMs: 10_000, description: 'started event' });

    // The platform stops: the scheduler first, then its processes.
    await p.scheduler().loop.stop();
    expect(await stopRecordedWorkloads(p.stateDir, 5_000)).toEqual([id]);
    expect(isProcessAlive(first)).toBe(false);
    const stopped = record(id);
    expect(stopped).toMatchObject({ phase: 'EXITED', reason: STOPPED_WITH_PLATFORM });

    await p.restartScheduler();
    const second = await pollUntil(() => {
      const current = record(id);
      return current.phase === 'RUNNING' && isProcessAlive(current.pid) ? current.pid : undefined;
    }, { timeoutMs: 20_000, description: 'the Pod to run again' });
    expect(second).not.toBe(first);
    const events = await pollUntil(async () => {
      const all = await p.usageEvents();
      return all.has(`${id}:started:2`) ? all : undefined;
    }, { timeoutMs: 10_000, description: 'the second start event' });
    expect(events.get(`${id}:stopped:1`)).toMatchObject({ type: 'pod.stopped', occurredAt: stopped.finishedAt });
  }, 90_000);
});
