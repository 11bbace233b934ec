// Scheduler restart: a new scheduler rebuilds its view from the Pod rows and the local driver's pid files. Running
// workloads are adopted (no second process, no new start event); a workload whose Pod was deleted meanwhile is ended.
import { isProcessAlive, pollUntil } from '@runplane/testing';
import { type PlatformHarness, startPlatform } from './harness';
import { processRecord, workloadProcesses } from './workloads';

describe('scheduler restart', () => {
  let p: PlatformHarness;

  beforeAll(async () => {
    p = await startPlatform('sched-restart');
  }, 180_000);

  afterAll(async () => {
    await p?.close();
  }, 60_000);

  async function runningPod(name: string): Promise<{ id: string; pid: number }> {
    const created = await p.v1('POST', '/pods', {
      name,
      imageName: 'runplane/sleeper:1',
      gpuTypeIds: ['NVIDIA H100 80GB HBM3'],
      gpuCount: 1,
      dockerEntrypoint: ['node'],
      dockerStartCmd: ['-e', 'setInterval(() => {}, 1000)'],
    });
    const id = (created.body as { id: string }).id;
    const pid = await pollUntil(
      () => {
        const record = processRecord(p.stateDir, id);
        return record?.phase === 'RUNNING' && isProcessAlive(record.pid) ? record.pid : undefined;
      },
      { timeoutMs: 20_000, description: `${name} to run` },
    );
    await pollUntil(async () => (await p.usageEvents()).has(`${id}:started:1`) || undefined, { timeoutMs: 10_000, description: 'started event' });
    return { id, pid };
  }

  it('adopts running workloads, ends orphans, and publishes nothing twice', async () => {
    const kept = await runningPod('kept');
    const orphan = await runningPod('orphan');
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
