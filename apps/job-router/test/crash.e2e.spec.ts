import { join } from 'node:path';
import { createAccountsServices } from '@runplane/accounts';
import { newId } from '@runplane/db';
import {
  createTestStores,
  getFreePort,
  pollUntil,
  type ProcessGroup,
  spawnProcessGroup,
  signalProcessGroup,
  stopProcessGroup,
  type TestStores,
} from '@runplane/testing';
import { runWorker } from '@runplane/worker-sdk';

/**
 * Crash safety: a job-router process is killed with SIGKILL in the middle of a 5,000-job run served by live
 * protocol workers, then started again. Every job it accepted (answered 200 with an id) must still reach a
 * terminal state: nothing is lost, nothing stays IN_QUEUE or IN_PROGRESS. Jobs are at-least-once: one a worker
 * held when the router died may be handed out again, so the test counts the jobs handled more than once
 * (duplicated) and prints them with the rest.
 */

const TOTAL = 5000;
const KILL_AFTER = 2000;
const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT']);
const REPO_ROOT = join(__dirname, '..', '..', '..');

describe('job-router crash during a 5,000-job run', () => {
  let stores: TestStores | undefined;
  let port: number;
  let router: ProcessGroup | undefined;
  const workersStop = new AbortController();

  function startRouter(env: Record<string, string>): ProcessGroup {
    return spawnProcessGroup(
      join(REPO_ROOT, 'node_modules/.bin/node'),
      ['-r', '@swc-node/register', 'apps/job-router/src/main.ts'],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, ...env },
      },
    );
  }

  async function waitReady(): Promise<void> {
    await pollUntil(async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok, {
      timeoutMs: 60_000,
      intervalMs: 100,
      ignoreErrors: true,
      description: 'job-router ready',
    });
  }

  afterAll(async () => {
    workersStop.abort();
    if (router) await stopProcessGroup(router, 5000);
    await stores?.close();
  });

  it('brings every accepted job to a terminal state after kill -9 and restart', async () => {
    stores = await createTestStores('crash');
    port = await getFreePort();
    const { db } = stores;
    const { accounts, apiKeys } = createAccountsServices(db);
    const account = await accounts.create({ name: 'crash' });
    const { secret } = await apiKeys.create(account.id, { name: 'crash', scope: 'ALL' });
    const template = await db.template.create({
      data: { id: newId(), accountId: account.id, name: 'echo', imageName: 'runplane/echo:1', isServerless: true },
    });
    const endpointId = (
      await db.endpoint.create({ data: { id: newId(), accountId: account.id, name: 'crash', templateId: template.id } })
    ).id;
    await db.$disconnect();

    const env = {
      DATABASE_URL: stores.database.url,
      REDIS_PREFIX: stores.prefix,
      PORT: String(port),
      LOG_LEVEL: 'error',
      JOB_HEARTBEAT_INTERVAL_MS: '1000',
      JOB_SWEEP_INTERVAL_MS: '250',
      JOB_TAKE_WAIT_MS: '1000',
      JOB_RATE_LIMITS: 'run=1000000/0,status=1000000/0',
    };
    router = startRouter(env);
    await waitReady();

    const baseUrl = `http://127.0.0.1:${port}/v2`;
    // How many times the workers ran each job's handler.
    const handled = new Map<string, number>();
    const workers = Array.from({ length: 8 }, (_, i) =>
      runWorker({
        handler: async (job) => {
          handled.set(job.id, (handled.get(job.id) ?? 0) + 1);
          return { echo: job.input };
        },
        concurrency: 8,
        baseUrl,
        endpointId,
        workerId: `crash-worker-${i}`,
        token: secret,
        pingIntervalMs: 1000,
        pollTimeoutMs: 5000,
        signal: workersStop.signal,
        log: () => undefined,
      }),
    );

    const accepted: string[] = [];
    let submitted = 0;
    let killed = false;
    let restarting: Promise<void> | undefined;
    const restart = async (): Promise<void> => {
      if (!router) return;
      signalProcessGroup(router.pid, 'SIGKILL');
      await router.exited;
      router = startRouter(env);
      await waitReady();
    };
    const submitOne = async (): Promise<void> => {
      // While the router is down, submitters wait for it instead of burning their attempts on refused connections.
      if (restarting) await restarting;
      const index = submitted++;
      try {
        const res = await fetch(`${baseUrl}/${endpointId}/run`, {
          method: 'POST',
          headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
          body: JSON.stringify({ input: { index } }),
        });
        if (res.status === 200) accepted.push(((await res.json()) as { id: string }).id);
      } catch {
        // refused while the router is down: not accepted, so not owed a result
      }
      if (!killed && accepted.length >= KILL_AFTER) {
        killed = true;
        restarting = restart();
        await restarting;
        restarting = undefined;
      }
    };
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (submitted < TOTAL) await submitOne();
      }),
    );
    expect(killed).toBe(true);

    const pending = new Set(accepted);
    const completedStatuses = new Map<string, string>();
    const lastStatus = new Map<string, string>();
    const histogram = (): string =>
      JSON.stringify(
        [...pending].reduce<Record<string, number>>((acc, id) => {
          const status = lastStatus.get(id) ?? 'unseen';
          acc[status] = (acc[status] ?? 0) + 1;
          return acc;
        }, {}),
      );
    await pollUntil(
      async () => {
        for (const id of [...pending]) {
          const res = await fetch(`${baseUrl}/${endpointId}/status/${id}`, { headers: { authorization: secret } });
          const status = res.status === 200 ? ((await res.json()) as { status: string }).status : `HTTP ${res.status}`;
          lastStatus.set(id, status);
          if (TERMINAL.has(status)) {
            pending.delete(id);
            completedStatuses.set(id, status);
          }
        }
        return pending.size === 0;
      },
      { timeoutMs: 180_000, intervalMs: 500, description: 'every accepted job terminal' },
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; still pending by last status: ${histogram()}`);
    });
    const completed = [...completedStatuses.values()].filter((s) => s === 'COMPLETED').length;
    const duplicated = accepted.filter((id) => (handled.get(id) ?? 0) > 1).length;
    console.log(
      `crash test: accepted ${accepted.length} / completed ${completed} / other terminal ${completedStatuses.size - completed}` +
        ` / lost ${pending.size} / duplicated ${duplicated}`,
    );
    expect(pending.size).toBe(0);
    // A COMPLETED job was run by a worker: its result is a handler's, not one made up by the router's recovery.
    const completedIds = accepted.filter((id) => completedStatuses.get(id) === 'COMPLETED');
    expect(completedIds.filter((id) => !handled.has(id))).toEqual([]);
    expect(accepted.length).toBeGreaterThan(TOTAL * 0.9);

    workersStop.abort();
    await Promise.all(workers);
  }, 400_000);
});
