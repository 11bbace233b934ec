import { randomBytes } from 'node:crypto';
import { createAccountsServices } from '@runplane/accounts';
import { newId } from '@runplane/db';
import {
  createTestStores,
  getFreePorts,
  pollUntil,
  type ProcessGroup,
  signalProcessGroup,
  stopProcessGroup,
  type TestStores,
} from '@runplane/testing';
import { runWorker } from '@runplane/worker-sdk';
import { startApp, waitReady } from '../../apps/scheduler/test/app-process';
import { RetryingClient } from './retrying-client';
import { RoundRobinProxy } from './round-robin-proxy';

/**
 * Rolling restart under load: two job-router and two gateway replicas run as processes behind a load balancer that
 * follows their /readyz (as a Kubernetes Service does), and each replica in turn gets SIGTERM, exits, and is started
 * again while 2,000 jobs go through /run to protocol workers that take them through the balancer too. Every accepted
 * job must complete, no request may fail (see RetryingClient for what a client retries), and every replica must exit
 * on its own with code 0 before its grace period ends in SIGKILL.
 */

const TOTAL = 2000;
/** The first SIGTERM goes out once this many jobs are accepted. */
const FIRST_RESTART_AT = 200;
/** Jobs submitted from one replica's SIGTERM on before submission waits for its exit (so each drain is under load). */
const PHASE_JOBS = 400;
/** Kubernetes' default terminationGracePeriodSeconds: SIGKILL follows SIGTERM after this long. */
const GRACE_MS = 30_000;
/**
 * How long a replica serves on with /readyz answering 503: well over the balancer's probe interval plus its probe
 * timeout, the longest it can take to see the 503 (or a probe answered too slowly) on a busy machine.
 */
const SHUTDOWN_DELAY_MS = 3_000;
const PROBE_INTERVAL_MS = 100;
const SUBMITTERS = 16;

type AppName = 'job-router' | 'gateway';
type Exit = Awaited<ProcessGroup['exited']>;

interface Replica {
  app: AppName;
  port: number;
  group: ProcessGroup;
}

/** A promise with its resolve function outside (a phase's replica has exited). */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** SIGTERM, then SIGKILL once the grace period is over (as the kubelet does); resolves with how the process ended. */
async function terminate(replica: Replica): Promise<Exit> {
  signalProcessGroup(replica.group.pid, 'SIGTERM');
  const kill = setTimeout(() => signalProcessGroup(replica.group.pid, 'SIGKILL'), GRACE_MS);
  const exit = await replica.group.exited;
  clearTimeout(kill);
  return exit;
}

describe('rolling restart of the job-router and the gateway under load', () => {
  let stores: TestStores | undefined;
  const replicas: Replica[] = [];
  const proxies: RoundRobinProxy[] = [];
  const workersStop = new AbortController();

  afterAll(async () => {
    workersStop.abort();
    await Promise.all(replicas.map((replica) => stopProcessGroup(replica.group, 5000)));
    await Promise.all(proxies.map((proxy) => proxy.stop()));
    await stores?.close();
  });

  async function seed(): Promise<{ secret: string; endpointId: string }> {
    stores = await createTestStores('rolling');
    const { db } = stores;
    const { accounts, apiKeys } = createAccountsServices(db);
    const account = await accounts.create({ name: 'rolling' });
    const { secret } = await apiKeys.create(account.id, { name: 'rolling', scope: 'ALL' });
    const template = await db.template.create({
      data: { id: newId(), accountId: account.id, name: 'echo', imageName: 'runplane/echo:1', isServerless: true },
    });
    const endpoint = await db.endpoint.create({
      data: { id: newId(), accountId: account.id, name: 'rolling', templateId: template.id },
    });
    return { secret, endpointId: endpoint.id };
  }

  function envOf(app: AppName, port: number, encryptionKey: string): Record<string, string> {
    if (!stores) throw new Error('seed() creates the stores first');
    const common = {
      DATABASE_URL: stores.database.url,
      REDIS_PREFIX: stores.prefix,
      PORT: String(port),
      LOG_LEVEL: 'error',
    };
    const shutdown = { SHUTDOWN_DELAY_MS: String(SHUTDOWN_DELAY_MS) };
    if (app === 'gateway') return { ...common, ...shutdown, RUNPLANE_ENCRYPTION_KEY: encryptionKey };
    // Takes park for 5 s, so a replica's SIGTERM finds some parked and must answer them.
    const jobs = { JOB_HEARTBEAT_INTERVAL_MS: '1000', JOB_SWEEP_INTERVAL_MS: '250', JOB_TAKE_WAIT_MS: '5000' };
    return { ...common, ...shutdown, ...jobs, JOB_RATE_LIMITS: 'run=1000000/0,status=1000000/0' };
  }

  /** Starts two replicas of each app and a balancer in front of each app's pair, once all four are in rotation. */
  async function startReplicas(): Promise<{
    jobs: RoundRobinProxy;
    gateway: RoundRobinProxy;
    env: (r: Replica) => Record<string, string>;
  }> {
    const ports = await getFreePorts(4);
    const encryptionKey = randomBytes(32).toString('hex');
    const env = (replica: Replica): Record<string, string> => envOf(replica.app, replica.port, encryptionKey);
    for (const [i, port] of ports.entries()) {
      const app: AppName = i < 2 ? 'job-router' : 'gateway';
      replicas.push({ app, port, group: startApp(app, envOf(app, port, encryptionKey)) });
    }
    await Promise.all(replicas.map((replica) => waitReady(replica.group, replica.port, replica.app)));
    const jobs = await RoundRobinProxy.start(ports.slice(0, 2), PROBE_INTERVAL_MS);
    const gateway = await RoundRobinProxy.start(ports.slice(2), PROBE_INTERVAL_MS);
    proxies.push(jobs, gateway);
    const serving = (): boolean => ports.every((port, i) => (i < 2 ? jobs : gateway).inRotation(port));
    await pollUntil(serving, { timeoutMs: 30_000, description: 'every replica in rotation' });
    return { jobs, gateway, env };
  }

  /** Protocol workers taking jobs through the balancer; `handled` collects the ids of the jobs they ran. */
  function startWorkers(baseUrl: string, endpointId: string, token: string, handled: Set<string>): Promise<void>[] {
    return Array.from({ length: 4 }, (_, i) =>
      runWorker({
        handler: async (job) => {
          handled.add(job.id);
          return { echo: job.input };
        },
        concurrency: 8,
        baseUrl,
        endpointId,
        workerId: `rolling-worker-${i}`,
        token,
        pingIntervalMs: 1000,
        pollTimeoutMs: 10_000,
        signal: workersStop.signal,
        log: () => undefined,
      }),
    );
  }

  /** SIGTERM to a replica, then its start again on the same port, resolved once the balancer sends to it again. */
  async function restart(
    replica: Replica,
    balancer: RoundRobinProxy,
    env: Record<string, string>,
    onExit: (exit: Exit) => void,
  ): Promise<void> {
    onExit(await terminate(replica));
    replica.group = startApp(replica.app, env);
    await waitReady(replica.group, replica.port, replica.app);
    await pollUntil(() => balancer.inRotation(replica.port), {
      timeoutMs: 30_000,
      description: `${replica.app}:${replica.port} back in rotation`,
    });
  }

  /** Polls every accepted job's status through the balancer until all are finished; returns how many completed. */
  async function finished(client: RetryingClient, jobsUrl: string, pending: Set<string>): Promise<number> {
    let completed = 0;
    const poll = async (): Promise<boolean> => {
      for (const id of [...pending]) {
        const answer = await client.send(`${jobsUrl}/status/${id}`, {}, [200]);
        const status = (answer?.body as { status?: string } | undefined)?.status;
        if (status === 'COMPLETED') completed++;
        if (status === 'COMPLETED' || status === 'FAILED' || status === 'CANCELLED' || status === 'TIMED_OUT')
          pending.delete(id);
      }
      return pending.size === 0;
    };
    // What is still pending after the timeout is reported as lost.
    await pollUntil(poll, { timeoutMs: 120_000, intervalMs: 500, description: 'every accepted job finished' }).catch(
      () => undefined,
    );
    return completed;
  }

  it('loses no accepted job, fails no request, and every replica drains and exits 0 on SIGTERM', async () => {
    const { secret, endpointId } = await seed();
    const { jobs, gateway, env } = await startReplicas();
    const client = new RetryingClient({ authorization: `Bearer ${secret}` });
    const jobsUrl = `${jobs.url}/v2/${endpointId}`;
    const handled = new Set<string>();
    const workers = startWorkers(`${jobs.url}/v2`, endpointId, secret, handled);

    // One phase per replica, in this order: its SIGTERM goes out at `startAt` accepted jobs, and submission waits for
    // its exit from `startAt + PHASE_JOBS` on.
    const order = [0, 2, 1, 3].flatMap((i) => replicas[i] ?? []);
    const phases = order.map((replica, i) => ({
      replica,
      startAt: FIRST_RESTART_AT + i * PHASE_JOBS,
      exited: deferred(),
    }));
    const accepted: string[] = [];
    const exits: Array<{ replica: string } & Exit> = [];
    let submitted = 0;
    let restartsDone = false;
    const submitter = async (): Promise<void> => {
      while (submitted < TOTAL) {
        const index = submitted++;
        for (const phase of phases) if (index >= phase.startAt + PHASE_JOBS) await phase.exited.promise;
        const answer = await client.send(`${jobsUrl}/run`, { method: 'POST', body: { input: { index } } }, [200]);
        if (answer) accepted.push((answer.body as { id: string }).id);
      }
    };
    // Management API traffic through the gateway's balancer for as long as replicas restart.
    const gatewayLoad = async (): Promise<void> => {
      while (!restartsDone) await client.send(`${gateway.url}/v1/endpoints/${endpointId}`, {}, [200]);
    };
    const restarts = async (): Promise<void> => {
      for (const { replica, startAt, exited } of phases) {
        await pollUntil(() => accepted.length >= startAt, {
          timeoutMs: 120_000,
          intervalMs: 20,
          description: `${startAt} jobs accepted`,
        });
        const balancer = replica.app === 'gateway' ? gateway : jobs;
        await restart(replica, balancer, env(replica), (exit) => {
          exits.push({ replica: `${replica.app}:${replica.port}`, ...exit });
          exited.resolve();
        });
      }
      restartsDone = true;
    };
    await Promise.all([
      restarts(),
      ...Array.from({ length: SUBMITTERS }, submitter),
      ...Array.from({ length: 4 }, gatewayLoad),
    ]);

    const pending = new Set(accepted);
    const completed = await finished(client, jobsUrl, pending);
    workersStop.abort();
    await Promise.all(workers);

    // The balancers see every failed request, the workers' included; a client sees the same ones as 502, and counts
    // only what else went wrong on its side.
    const atBalancers = [...jobs.counts.failures, ...gateway.counts.failures];
    const failures = [...atBalancers, ...client.counts.failures.filter((failure) => !failure.includes(': HTTP 502 '))];
    console.log(
      `rolling restart: accepted ${accepted.length} / completed ${completed} / lost ${pending.size} / failed requests ${failures.length}` +
        ` (of ${client.counts.requests} client requests, ${client.counts.retried} retried; ${jobs.counts.forwarded + gateway.counts.forwarded} through the balancers)`,
    );
    expect(exits).toEqual(
      order.map((replica) => ({ replica: `${replica.app}:${replica.port}`, code: 0, signal: null })),
    );
    expect(failures).toEqual([]);
    expect(pending.size).toBe(0);
    expect(completed).toBe(TOTAL);
    expect(accepted.length).toBe(TOTAL);
    expect(accepted.filter((id) => !handled.has(id))).toEqual([]);
  }, 400_000);
});
