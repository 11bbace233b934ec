// Crash safety of the scheduler: its process is SIGKILLed while an endpoint's serverless workers (examples/echo-worker
// processes run by the local driver) work through a few hundred jobs, more jobs arrive while it is down, and a new
// scheduler process starts on the same state. Every job the job API accepted completes (nothing is lost), and the new
// scheduler adopts the running workers (no second process) and scales them away once idle.
import { createAccountsServices } from '@runplane/accounts';
import { seedCatalog } from '@runplane/catalog';
import { createPrismaClient, newId } from '@runplane/db';
import {
  createTestStores,
  ECHO_WORKER_TEMPLATE,
  getFreePorts,
  pollUntil,
  type ProcessGroup,
  signalProcessGroup,
  stopProcessGroup,
  TEST_REDIS_URL,
  type TestStores,
} from '@runplane/testing';
import { REPO_ROOT, startApp, waitReady } from './app-process';
import { killLeftoverWorkloads, processRecord, workloadProcesses } from './workloads';

/** Jobs submitted before the kill; the scheduler dies once KILL_AFTER of them completed. */
const BEFORE_KILL = 200;
const KILL_AFTER = 40;
/** Jobs submitted while no scheduler runs. */
const DURING_OUTAGE = 100;
const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT']);

type JobStatus = { status: string; retries?: number };

describe('scheduler killed with SIGKILL under load', () => {
  let stores: TestStores;
  let db: ReturnType<typeof createPrismaClient>;
  let stateDir: string;
  const groups: ProcessGroup[] = [];
  let schedulerEnv: Record<string, string>;
  let schedulerPort: number;
  let jobApi: string;
  let secret: string;
  let endpointId: string;

  beforeAll(async () => {
    stores = await createTestStores('sched-crash');
    ({ db, stateDir } = stores);
    await seedCatalog(db);
    const [jobPort = 0, port = 0] = await getFreePorts(2);
    schedulerPort = port;
    jobApi = `http://127.0.0.1:${jobPort}`;
    const common = {
      DATABASE_URL: stores.database.url,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: stores.prefix,
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
    };
    const jobRouter = startApp('job-router', {
      ...common,
      PORT: String(jobPort),
      JOB_TAKE_WAIT_MS: '1000',
      JOB_HEARTBEAT_INTERVAL_MS: '1000',
      JOB_SWEEP_INTERVAL_MS: '500',
      JOB_RATE_LIMITS: 'run=1000000/0,status=1000000/0',
    });
    groups.push(jobRouter);
    schedulerEnv = {
      ...common,
      PORT: String(schedulerPort),
      SCHEDULER_STATE_DIR: stateDir,
      SCHEDULER_WORK_DIR: REPO_ROOT,
      SCHEDULER_JOB_API_URL: jobApi,
      SCHEDULER_TICK_MS: '250',
      SCHEDULER_STOP_GRACE_MS: '3000',
      SCHEDULER_WORKER_PING_MS: '1000',
      // The killed scheduler never releases its lease: the new one takes over once it lapses.
      SCHEDULER_LEADER_TTL_MS: '2000',
    };
    await waitReady(jobRouter, jobPort, 'job-router');
    ({ secret, endpointId } = await createEndpoint(db));
  }, 180_000);

  afterAll(async () => {
    // Deleting the worker Pods lets the running scheduler end their processes before it stops.
    const pods = await db.pod.findMany({ select: { id: true } });
    await db.pod.deleteMany({});
    await pollUntil(() => pods.every((pod) => workloadProcesses(pod.id).length === 0) || undefined, {
      timeoutMs: 30_000,
      description: 'every worker process to end',
    }).catch(() => undefined);
    for (const group of groups) await stopProcessGroup(group, 5_000);
    // A worker the scheduler did not end (it failed above, or the killed scheduler's) is not left running.
    killLeftoverWorkloads(stateDir);
    await stores.close();
  }, 90_000);

  async function submit(count: number, from: number): Promise<string[]> {
    const ids: string[] = [];
    for (let index = from; index < from + count; index += 1) {
      const response = await fetch(`${jobApi}/v2/${endpointId}/run`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ input: { text: `job ${index}`, sleepMs: 100 } }),
      });
      expect(response.status).toBe(200);
      ids.push(((await response.json()) as { id: string }).id);
    }
    return ids;
  }

  /** The jobs' statuses, once each is terminal. */
  async function settle(ids: string[], timeoutMs: number, description: string): Promise<Map<string, JobStatus>> {
    const done = new Map<string, JobStatus>();
    await pollUntil(
      async () => {
        for (const id of ids.filter((job) => !done.has(job))) {
          const answer = await fetch(`${jobApi}/v2/${endpointId}/status/${id}`, { headers: { authorization: secret } });
          const status = (await answer.json()) as JobStatus;
          if (TERMINAL.has(status.status)) done.set(id, status);
        }
        return done.size === ids.length;
      },
      { timeoutMs, intervalMs: 250, description: `${description} (${done.size} of ${ids.length} so far)` },
    );
    return done;
  }

  async function completedCount(ids: string[]): Promise<number> {
    let count = 0;
    for (const id of ids) {
      const response = await fetch(`${jobApi}/v2/${endpointId}/status/${id}`, { headers: { authorization: secret } });
      if (((await response.json()) as JobStatus).status === 'COMPLETED') count += 1;
    }
    return count;
  }

  /**
   * The restarted scheduler adopted the workers it found running rather than starting them again (no Pod has a
   * second process, and the workers alive at the kill kept theirs), and it governs them: once the queue is empty it
   * scales the endpoint to 0, ending the adopted processes too.
   */
  async function expectAdoptedThenScaledAway(workersAtKill: { id: string; pid: number }[]): Promise<void> {
    for (const { id } of await db.pod.findMany({ where: { endpointId }, select: { id: true } })) {
      expect(workloadProcesses(id).length).toBeLessThanOrEqual(1);
    }
    for (const { id, pid } of workersAtKill) {
      const now = workloadProcesses(id);
      if (now.length > 0) expect(now).toEqual([pid]);
    }
    await pollUntil(async () => (await db.pod.count({ where: { endpointId } })) === 0 || undefined, {
      timeoutMs: 60_000,
      description: 'the restarted scheduler to scale the endpoint to 0',
    });
    await pollUntil(() => workersAtKill.every(({ id }) => workloadProcesses(id).length === 0) || undefined, {
      timeoutMs: 30_000,
      description: 'the adopted worker processes to end',
    });
  }

  it('completes every accepted job across a kill -9 and restart of the scheduler', async () => {
    const first = startApp('scheduler', schedulerEnv);
    groups.push(first);
    await waitReady(first, schedulerPort, 'scheduler');
    const accepted = await submit(BEFORE_KILL, 0);
    // Under load: workers scaled up from 0 and are working through the queue.
    await pollUntil(async () => (await completedCount(accepted)) >= KILL_AFTER || undefined, {
      timeoutMs: 120_000,
      intervalMs: 500,
      description: `${KILL_AFTER} jobs completed before the kill`,
    });
    const workersAtKill = (await db.pod.findMany({ where: { endpointId }, select: { id: true } }))
      .map(({ id }) => ({ id, pid: processRecord(stateDir, id)?.pid }))
      .filter((worker): worker is { id: string; pid: number } => worker.pid !== undefined);
    signalProcessGroup(first.pid, 'SIGKILL');
    expect(await first.exited).toMatchObject({ signal: 'SIGKILL' });
    expect(workersAtKill.length).toBeGreaterThan(0);

    accepted.push(...(await submit(DURING_OUTAGE, BEFORE_KILL)));
    const second = startApp('scheduler', schedulerEnv);
    groups.push(second);
    await waitReady(second, schedulerPort, 'scheduler');

    const statuses = await settle(accepted, 180_000, 'every accepted job terminal');
    const completed = [...statuses.values()].filter((status) => status.status === 'COMPLETED').length;
    const duplicated = [...statuses.values()].filter((status) => (status.retries ?? 0) > 0).length;
    const lost = accepted.length - completed;
    console.log(
      `scheduler crash test: accepted ${accepted.length} / completed ${completed} / lost ${lost} / duplicated ${duplicated}`,
    );
    expect(lost).toBe(0);
    await expectAdoptedThenScaledAway(workersAtKill);
  }, 400_000);
});

/** An account with a key, the echo worker's template and an endpoint that scales 0 → 3 workers on queue delay. */
async function createEndpoint(
  db: ReturnType<typeof createPrismaClient>,
): Promise<{ secret: string; endpointId: string }> {
  const { accounts, apiKeys } = createAccountsServices(db);
  const account = await accounts.create({ name: 'sched-crash' });
  const { secret } = await apiKeys.create(account.id, { name: 'crash', scope: 'ALL' });
  const template = await db.template.create({ data: { id: newId(), accountId: account.id, ...ECHO_WORKER_TEMPLATE } });
  const endpoint = await db.endpoint.create({
    data: {
      id: newId(),
      accountId: account.id,
      name: 'crash',
      templateId: template.id,
      gpuTypeIds: ['NVIDIA GeForce RTX 4090'],
      gpuCount: 1,
      workersMin: 0,
      workersMax: 3,
      idleTimeout: 5,
      scalerType: 'QUEUE_DELAY',
      scalerValue: 1,
      env: { ECHO_CONCURRENCY: '4' },
    },
  });
  return { secret, endpointId: endpoint.id };
}
