import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { recordRunProcess, sweepStaleRuns, writeRunOwner } from './kube-env-runs';
import { isProcessAlive, spawnProcessGroup, stopProcessGroup } from './process';

describe('control plane run folders', () => {
  const runs = mkdtempSync(path.join(tmpdir(), 'kube-runs-'));
  afterAll(() => rmSync(runs, { recursive: true, force: true }));

  /** A stand-in component: a process group whose command line names its run folder, like the real ones. */
  const component = (dir: string) =>
    spawnProcessGroup(process.execPath, ['-e', 'setInterval(() => {}, 1000)', dir], {
      cwd: dir,
      env: { PATH: process.env['PATH'] },
    });

  it('kills the processes of runs whose owner has exited and removes their folders', async () => {
    const dir = path.join(runs, 'run-dead');
    mkdirSync(dir);
    const owner = spawnProcessGroup(process.execPath, ['-e', ''], { cwd: dir, env: {} });
    await owner.exited;
    writeRunOwner(dir, owner.pid);
    const leftover = component(dir);
    recordRunProcess(dir, leftover.pid);

    expect(sweepStaleRuns(runs)).toEqual([dir]);
    await leftover.exited;
    expect(isProcessAlive(leftover.pid)).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });

  it('leaves runs of a live owner, and processes that are not the run’s, alone', async () => {
    const live = path.join(runs, 'run-live');
    mkdirSync(live);
    writeRunOwner(live, process.pid);
    const dead = path.join(runs, 'run-reused-pid');
    mkdirSync(dead);
    writeRunOwner(dead, 2 ** 22 + 1);
    const unrelated = component(live); // its command line names another folder
    recordRunProcess(dead, unrelated.pid);

    expect(sweepStaleRuns(runs)).toEqual([dead]);
    expect(existsSync(live)).toBe(true);
    expect(isProcessAlive(unrelated.pid)).toBe(true);
    await stopProcessGroup(unrelated);
  });
});
