import { getFreePorts, isProcessAlive } from '@runplane/testing';
import { createEchoEndpoint, RunnerHarness } from './test/runner-harness';

/**
 * The local driver runs workers in their own process groups, so only the runner can take them down with the
 * platform. A runner killed with SIGKILL cannot: the next start finds what it left and stops it.
 */
describe('npm start: local workers do not outlive the platform (smoke)', () => {
  const platform = new RunnerHarness('workloads-smoke');

  beforeAll(() => platform.setUp());
  afterAll(() => platform.tearDown());

  it('stops, at the next start, the apps and the worker a killed runner left behind; SIGTERM leaves no worker', async () => {
    const ports = await getFreePorts(5);
    const first = await platform.start(ports);
    await createEchoEndpoint(ports[0] ?? 0, platform.adminKey(), 1);
    const orphan = await platform.runningWorker();
    const left = platform.readPids();

    process.kill(left.record.runner, 'SIGKILL');
    await first.exited;
    // Nobody stopped it: the worker still runs.
    expect(isProcessAlive(orphan.pid)).toBe(true);

    // Same ports and state dir, as after a crash: the leftovers are stopped before anything starts.
    const second = await platform.start(ports);
    expect(second.output()).toContain('stopping what an earlier run left running: gateway (pid');
    expect(second.output()).toContain(`stopped local workloads an earlier run left running: ${orphan.podId}`);
    expect([...Object.values(left.record.apps), orphan.pid].some(isProcessAlive)).toBe(false);
    // The scheduler of this run starts the endpoint's worker again, as a process of its own.
    const worker = await platform.runningWorker([orphan.pid]);
    const now = platform.readPids();
    expect(now.record.runner).not.toBe(left.record.runner);

    // SIGTERM to the runner alone (as a service manager sends it): it stops the apps, then the worker.
    process.kill(now.record.runner, 'SIGTERM');
    const exit = await second.exited;
    expect(exit.code).toBe(0);
    expect(second.output()).toContain('stopping (received SIGTERM)');
    expect(second.output()).toContain(`stopped local workloads: ${worker.podId}`);
    await platform.expectNothingLeft([...now.all, worker.pid], ports);
  }, 600_000);
});
