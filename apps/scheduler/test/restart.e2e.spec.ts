// Scheduler restart: a new scheduler rebuilds its view from the Pod rows and the local driver's pid files. Running
// workloads are adopted (no second process, no new start event); a workload whose Pod was deleted meanwhile is ended.
import { isProcessAlive, pollUntil } from '@runplane/testing';
import { type PlatformHarness, startPlatform } from './harness';
import { processRecord, runningPod, workloadProcesses } from './workloads';

describe('scheduler restart', () => {
  let p: PlatformHarness;

  beforeAll(async () => {
    p = await startPlatform('sched-restart');
  }, 180_000);

  afterAll(async () => {
    await p?.close();
  }, 60_000);

  it('adopts running workloads, ends orphans, and publishes nothing twice', async () => {
    const kept = await runningPod(p, 'kept');
    const orphan = await runningPod(p, 'orphan');
    const eventsBefore = [...(await p.usageEvents()).keys()].sort();

    // While no scheduler runs, the orphan's Pod row disappears (as if deleted through the API during the outage).
    await p.scheduler().loop.stop();
    await p.db.pod.delete({ where: { id: orphan.id } });
    await p.restartScheduler();

    await pollUntil(() => (!isProcessAlive(orphan.pid) && processRecord(p.stateDir, orphan.id) === null) || undefined, {
      timeoutMs: 20_000,
      description: 'the orphan to be ended',
    });
    // Several passes later the kept Pod still runs its one original process.
    for (let pass = 0; pass < 3; pass += 1) {
      p.scheduler().loop.trigger();
      await p.scheduler().loop.settled();
    }
    expect(workloadProcesses(kept.id)).toEqual([kept.pid]);
    expect(processRecord(p.stateDir, kept.id)).toMatchObject({ pid: kept.pid, phase: 'RUNNING' });

    const events = [...(await p.usageEvents()).keys()].sort();
    expect(events).toEqual([...eventsBefore, `${orphan.id}:stopped:1`, `${orphan.id}:terminated:1`].sort());
  }, 90_000);
});
