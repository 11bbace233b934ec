import { pollUntil } from '@runplane/testing';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { bearer, type JobRouterHarness, raw, startJobRouter } from './harness';

const REPO_ROOT = resolve(__dirname, '..', '..', '..');

function cli(databaseUrl: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const entry = ['-r', '@swc-node/register', 'tools/cli/runplane.ts', ...args];
  return new Promise((done) => {
    execFile(
      process.execPath,
      entry,
      { cwd: REPO_ROOT, env: { ...process.env, DATABASE_URL: databaseUrl } },
      (error, stdout, stderr) => {
        done({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
      },
    );
  });
}

describe('job-router lifecycle: engine sweep, worker tokens from the CLI', () => {
  let h: JobRouterHarness;
  let key: Record<string, string>;
  let endpointId: string;

  beforeAll(async () => {
    h = await startJobRouter('jr-life', { JOB_SWEEP_INTERVAL_MS: '20' });
    const account = await h.accountWithKey();
    key = bearer(account.secret);
    endpointId = await h.endpoint(account.accountId);
  });
  afterAll(() => h.close());

  it('sweeps on its interval: a silent worker loses its job to the queue without any request driving it', async () => {
    const run = await h.inject({ method: 'POST', url: `/v2/${endpointId}/run`, headers: key, payload: { input: {} } });
    const { id } = run.json() as { id: string };
    const take = await h.inject({ method: 'GET', url: `/v2/${endpointId}/job-take/silent`, headers: key });
    expect(take.json()).toMatchObject({ id });
    h.clock.advance(3 * h.config.JOB_HEARTBEAT_INTERVAL_MS + 1);
    const status = async () =>
      (await h.inject({ method: 'GET', url: `/v2/${endpointId}/status/${id}`, headers: key })).json() as {
        status: string;
        retries: number;
      };
    const requeued = await pollUntil(async () => {
      const job = await status();
      return job.retries > 0 ? job : undefined;
    });
    expect(requeued).toMatchObject({ status: 'IN_QUEUE', retries: 1 });
  });

  it('prints a worker token as the last line of `worker-token create`, and the token works for that worker only', async () => {
    const result = await cli(
      h.databaseUrl,
      'worker-token',
      'create',
      '--endpoint',
      endpointId,
      '--worker',
      'op-worker-1',
    );
    expect(result.code).toBe(0);
    const token = result.stdout.trim().split('\n').at(-1) ?? '';
    expect(token).toMatch(/^rpw_[A-Za-z0-9_-]{43}$/);
    const ping = (worker: string) =>
      h.inject({ method: 'GET', url: `/v2/${endpointId}/ping/${worker}`, headers: raw(token) });
    expect((await ping('op-worker-1')).statusCode).toBe(200);
    expect((await ping('op-worker-2')).statusCode).toBe(401);
    const row = await h.db.workerToken.findFirst({ where: { endpointId, workerId: 'op-worker-1' } });
    expect(row?.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row?.hash).not.toContain(token);
  });

  it('refuses a token for an unknown endpoint or a bad worker id', async () => {
    const unknown = await cli(h.databaseUrl, 'worker-token', 'create', '--endpoint', 'nope', '--worker', 'w');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Endpoint not found');
    const bad = await cli(h.databaseUrl, 'worker-token', 'create', '--endpoint', endpointId, '--worker', 'bad id!');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('workerId:');
  });
});
