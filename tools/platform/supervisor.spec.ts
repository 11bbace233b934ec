import { isProcessAlive } from '@runplane/testing';
import { PassThrough } from 'node:stream';
import { type ChildFailure, type ChildSpec, Supervisor } from './supervisor';

function nodeChild(name: string, script: string): ChildSpec {
  return { name, command: process.execPath, args: ['-e', script], cwd: __dirname, env: { GREETING: `hi from ${name}` } };
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
  const logs: string[] = [];

  beforeEach(() => {
    stdout = new PassThrough();
    stderr = new PassThrough();
    supervisor = new Supervisor((line) => logs.push(line), { stdout, stderr }, 500, 6);
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

  it('reports the first child that exits on its own, once', async () => {
    const failures: ChildFailure[] = [];
    supervisor.onFailure((failure) => failures.push(failure));
    supervisor.start(longRunning('steady'));
    supervisor.start(nodeChild('crashy', 'process.exit(3)'));
    supervisor.start(nodeChild('crashy2', 'setTimeout(() => process.exit(4), 200)'));
    await until(() => failures.length > 0);
    expect(failures).toEqual([{ name: 'crashy', code: 3, signal: null }]);
    expect(logs).toContain('crashy exited unexpectedly (code 3)');
  });

  it('stops every child, killing one that ignores SIGTERM after the grace period', async () => {
    const out = collect(stdout);
    const failures: ChildFailure[] = [];
    supervisor.onFailure((failure) => failures.push(failure));
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
  });
});
