// `npm start` stops the local driver's processes with the platform (stopRecordedWorkloads, once the scheduler is
// down). The next scheduler starts a wanted Pod again, and billing counts the time it was stopped as stopped.
import { isProcessAlive, pollUntil } from '@runplane/testing';
import { STOPPED_WITH_PLATFORM, stopRecordedWorkloads } from '../src/drivers/local/stop-recorded';
import { type PlatformHarness, startPlatform } from './harness';
import { processRecord, runningPid, runningPod } from './workloads';

describe('local workloads stopped with the platform', () => {
  let p: PlatformHarness;

  beforeAll(async () => {
    p = await startPlatform('platform-stop');
  }, 180_000);

  afterAll(async () => {
    await p?.close();
  }, 60_000);

  it('runs the Pod again at the next start, billed as stopped from when the platform stopped it', async () => {
    const { id, pid: first } = await runningPod(p, 'kept');

    // The platform stops: the scheduler first, then its processes.
    await p.scheduler().loop.stop();
    expect(await stopRecordedWorkloads(p.stateDir, 5_000)).toEqual([id]);
    expect(isProcessAlive(first)).toBe(false);
    const stopped = processRecord(p.stateDir, id);
    expect(stopped).toMatchObject({ phase: 'EXITED', reason: STOPPED_WITH_PLATFORM });

    await p.restartScheduler();
    const second = await runningPid(p.stateDir, id, 'the Pod to run again');
    expect(second).not.toBe(first);
    const events = await pollUntil(
      async () => {
        const all = await p.usageEvents();
        return all.has(`${id}:started:2`) ? all : undefined;
      },
      { timeoutMs: 10_000, description: 'the second start event' },
    );
    expect(events.get(`${id}:stopped:1`)).toMatchObject({ type: 'pod.stopped', occurredAt: stopped?.finishedAt });
  }, 90_000);
});
