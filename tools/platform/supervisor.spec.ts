import { isProcessAlive } from '@runplane/testing';
import { PassThrough } from 'node:stream';
import { type ChildFailure, type ChildSpec, type RestartPolicy, Supervisor } from './supervisor';

function nodeChild(name: string, script: string): ChildSpec {
  return {
    name,
    command: process.execPath,
    args: ['-e', script],
    cwd: __dirname,
    env: { GREETING: `hi from ${name}` },
  };
}

/** Stays up until killed, printing a line once it is running; `ignoreTerm` makes it shrug off SIGTERM. */
function longRunning(name: string, ignoreTerm = false): ChildSpec {
  const trap = ignoreTerm ? "process.on('SIGTERM', () => undefined);" : '';
  return nodeChild(name, `${trap} console.log(process.env.GREETING); setInterval(() => undefined, 1000);`);
}

function collect(stream: PassThrough): () => string {
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return () => text;
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('Supervisor', () => {
  let stdout: PassThrough;
  let stderr: PassThrough;
  let supervisor: Supervisor;
  let logs: string[];

  function supervise(restart: RestartPolicy, now?: () => number): Supervisor {
    supervisor = new Supervisor({
      log: (line) => logs.push(line),
      out: { stdout, stderr },
      graceMs: 500,
      prefixWidth: 6,
      restart,
      now,
    });
    return supervisor;
  }

  beforeEach(() => {
    stdout = new PassThrough();
    stderr = new PassThrough();
    logs = [];
    supervise({ backoffMs: 10, crashLimit: 3, windowMs: 60_000 });
  });

  afterEach(() => supervisor.stopAll());

  it('prefixes each line of a child with its name', async () => {
    const out = collect(stdout);
    const err = collect(stderr);
    supervisor.start(longRunning('alpha'));
    supervisor.start(nodeChild('beta', "console.error('line one\\nline two'); setInterval(() => undefined, 1000);"));
    await until(() => out().includes('hi from alpha') && err().includes('line two'));
    expect(out()).toContain('alpha  | hi from alpha\n');
    expect(err()).toContain('beta   | line one\nbeta   | line two\n');
  });

  it('restarts a killed child, saying why, while the others keep running', async () => {
    const out = collect(stdout);
    const restarts: Array<[string, number]> = [];
    supervisor.onRestart((name, pid) => restarts.push([name, pid]));
    const steady = supervisor.start(longRunning('steady'));
    const first = supervisor.start(longRunning('victim'));
    await until(() => out().includes('hi from victim') && out().includes('hi from steady'));

    process.kill(first, 'SIGKILL');
    await until(() => restarts.length > 0);
    const [[name, second]] = restarts as [[string, number]];
    expect(name).toBe('victim');
    expect(second).not.toBe(first);
    await until(() => out().split('hi from victim').length === 3);
    expect(isProcessAlive(second)).toBe(true);
    expect(supervisor.pids()).toEqual({ steady, victim: second });
    expect(isProcessAlive(steady)).toBe(true);
    expect(logs).toContain(
      'victim exited unexpectedly (SIGKILL); restarting it in 10 ms (1 of 3 crashes within 60000 ms)',
    );
    expect(logs).toContain(`restarted victim (pid ${second})`);
  });

  it('backs off longer after each crash and gives up, once, when a child crashes too often', async () => {
    const failures: ChildFailure[] = [];
    supervisor.onFailure((failure) => failures.push(failure));
    const steady = supervisor.start(longRunning('steady'));
    supervisor.start(nodeChild('crashy', 'process.exit(3)'));
    await until(() => failures.length > 0);
    expect(failures).toEqual([{ name: 'crashy', code: 3, signal: null, crashes: 3 }]);
    expect(logs.filter((line) => line.startsWith('crashy'))).toEqual([
      'crashy exited unexpectedly (code 3); restarting it in 10 ms (1 of 3 crashes within 60000 ms)',
      'crashy exited unexpectedly (code 3); restarting it in 20 ms (2 of 3 crashes within 60000 ms)',
      'crashy exited unexpectedly (code 3): 3 crashes within 60000 ms, giving up',
    ]);
    expect(supervisor.pids().steady).toBe(steady);
    expect(isProcessAlive(steady)).toBe(true);
  });

  it('counts only the crashes within the window', async () => {
    let now = 0;
    supervise({ backoffMs: 0, crashLimit: 2, windowMs: 1_000 }, () => now);
    const failures: ChildFailure[] = [];
    supervisor.onFailure((failure) => failures.push(failure));
    let restarts = 0;
    // Each crash comes a window after the one before: none is "repeated".
    supervisor.onRestart(() => {
      restarts += 1;
      now += 1_000;
    });
    supervisor.start(nodeChild('flaky', 'process.exit(1)'));
    await until(() => restarts >= 4);
    expect(failures).toEqual([]);
    expect(logs.filter((line) => line.includes('(1 of 2 crashes within 1000 ms)')).length).toBeGreaterThanOrEqual(4);

    // Two crashes within the window: the supervisor gives up.
    supervisor.onRestart(() => undefined);
    await until(() => failures.length > 0);
    expect(failures).toEqual([{ name: 'flaky', code: 1, signal: null, crashes: 2 }]);
  });

  it('stops every child, killing one that ignores SIGTERM after the grace period', async () => {
    const out = collect(stdout);
    const failures: ChildFailure[] = [];
    const restarts: string[] = [];
    supervisor.onFailure((failure) => failures.push(failure));
    supervisor.onRestart((name) => restarts.push(name));
    supervisor.start(longRunning('polite'));
    supervisor.start(longRunning('stubborn', true));
    await until(() => out().includes('hi from polite') && out().includes('hi from stubborn'));
    const pids = Object.values(supervisor.pids());
    expect(pids).toHaveLength(2);

    const started = Date.now();
    await supervisor.stopAll();
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    expect(pids.some(isProcessAlive)).toBe(false);
    expect(failures).toEqual([]);
    expect(restarts).toEqual([]);
    expect(logs.some((line) => line.includes('exited unexpectedly'))).toBe(false);
  });
});
