// Load-balancing endpoints on the local driver: the scheduler scales an endpoint's workers from 0 on the job-routers'
// traffic (the LoadBalancerTraffic snapshots and lb.demand event a job-router publishes, written here as one would),
// gives each worker free loopback ports as PORT and PORT_HEALTH, records where its servers listen, keeps a worker with
// a request in flight while idle ones go (each drained first: removed only once the job-routers know it drains and have
// no request on it), and scales back to 0.
import { readFileSync } from 'node:fs';
import { LB_SNAPSHOT_STALE_MS, LoadBalancerTraffic, WorkerRetirement } from '@runplane/jobs';
import { isProcessAlive, pollUntil } from '@runplane/testing';
import { type PlatformHarness, startPlatform } from './harness';
import { createLbEndpoint, processRecord } from './workloads';

/** RunPod's load-balancing worker shape: an HTTP server on PORT, a health server answering /ping on PORT_HEALTH. */
const SERVER = `
const http = require('node:http');
const port = Number(process.env.PORT), health = Number(process.env.PORT_HEALTH);
http.createServer((req, res) => res.end(JSON.stringify({ path: req.url, port }))).listen(port, '127.0.0.1');
http.createServer((req, res) => { res.statusCode = req.url === '/ping' ? 200 : 404; res.end(); }).listen(health, '127.0.0.1');
`;

function envOf(pid: number): Record<string, string> {
  return Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
}

describe('load-balancing endpoints on the local driver', () => {
  let p: PlatformHarness;
  let traffic: LoadBalancerTraffic;
  let retirement: WorkerRetirement;
  let endpointId: string;

  beforeAll(async () => {
    p = await startPlatform('sched-lb');
    traffic = new LoadBalancerTraffic(p.redis, p.prefix);
    retirement = new WorkerRetirement(p.redis, p.prefix);
    endpointId = await createLbEndpoint(p, SERVER, {
      workersMax: 3,
      idleTimeout: 1,
      scalerValue: 2,
      env: { PORT: '8000', PORT_HEALTH: '8001' },
    });
  }, 180_000);

  afterAll(async () => {
    await p?.close();
  }, 60_000);

  const workers = () => p.db.pod.findMany({ where: { endpointId }, orderBy: { createdAt: 'asc' } });
  /** The workers the scheduler is draining (retired, rows still there). */
  const draining = async () => [
    ...(
      await retirement.retiredAmong(
        endpointId,
        (await workers()).map((row) => row.id),
      )
    ).keys(),
  ];
  /**
   * Publishes one job-router's traffic, fresh each time (older snapshots count as a replica gone), naming the workers
   * it knows drain as a job-router does once it read their retired marks; `unaware`, as one that has not yet.
   */
  const route = async (waiting: number, inFlight: Record<string, number> = {}, { unaware = false } = {}) =>
    traffic.publish(endpointId, 'router-a', {
      at: Date.now(),
      waiting,
      inFlight,
      requestsPerSecond: 0,
      draining: unaware ? [] : await draining(),
    });
  /** Holds the traffic while waiting for the fleet to reach a state. */
  const holding = <T>(
    load: () => Promise<void>,
    check: () => Promise<T | undefined>,
    description: string,
  ): Promise<T> =>
    pollUntil(
      async () => {
        await load();
        return check();
      },
      { timeoutMs: 30_000, intervalMs: 200, description },
    );

  it('starts no worker without traffic', async () => {
    for (let pass = 0; pass < 3; pass += 1) {
      p.scheduler().loop.trigger();
      await p.scheduler().loop.settled();
    }
    expect(await workers()).toHaveLength(0);
  });

  it('scales from 0 on a waiting request; the worker serves on loopback ports given as PORT and PORT_HEALTH', async () => {
    await route(1);
    await traffic.demand(endpointId);
    const worker = await holding(
      () => route(1),
      async () => (await workers()).find((row) => row.serviceAddress !== null && row.healthAddress !== null),
      'a worker with its addresses',
    );
    const [host, port] = (worker.serviceAddress as string).split(':');
    const healthPort = (worker.healthAddress as string).split(':')[1];
    expect(host).toBe('127.0.0.1');
    expect(worker.healthAddress).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(healthPort).not.toBe(port);
    const pid = processRecord(p.stateDir, worker.id)?.pid as number;
    expect(envOf(pid)).toMatchObject({ PORT: port, PORT_HEALTH: healthPort, RUNPOD_ENDPOINT_ID: endpointId });
    const answer = await pollUntil(
      () =>
        fetch(`http://${worker.serviceAddress}/hello`).then(
          (res) => res.json(),
          () => undefined,
        ),
      { timeoutMs: 15_000, description: "the worker's server" },
    );
    expect(answer).toEqual({ path: '/hello', port: Number(port) });
    expect((await fetch(`http://${worker.healthAddress}/ping`)).status).toBe(200);
  }, 60_000);

  it('adds workers for the requests waiting and in flight, up to workersMax', async () => {
    const [first] = await workers();
    await holding(
      () => route(5, { [first?.id as string]: 1 }),
      async () => ((await workers()).filter((row) => row.serviceAddress !== null).length === 3 ? true : undefined),
      'three serving workers',
    );
    // /v2/serverless/{id}/workers lists them as the autoscaler sees them: the one with a request in flight runs.
    const listed = await holding(
      () => route(5, { [first?.id as string]: 1 }),
      async () => {
        const res = await fetch(`${p.gatewayUrl}/v2/serverless/${endpointId}/workers`, {
          headers: { authorization: `Bearer ${p.secret}` },
        });
        const body = (await res.json()) as { workers: { id: string; status: string }[] };
        const statuses = body.workers.map((worker) => worker.status).sort();
        return statuses.join() === 'IDLE,IDLE,RUNNING' ? body.workers : undefined;
      },
      'the workers listed, one running',
    );
    expect(listed.find((worker) => worker.status === 'RUNNING')?.id).toBe(first?.id);
  }, 60_000);

  it('removes idle workers but keeps the one with a request in flight, then scales to 0', async () => {
    const [first] = await workers();
    const busy = first?.id as string;
    const kept = await holding(
      () => route(0, { [busy]: 1 }),
      async () => {
        const rows = await workers();
        return rows.length === 1 ? rows : undefined;
      },
      'the idle workers to go',
    );
    expect(kept.map((row) => row.id)).toEqual([busy]);
    const pid = processRecord(p.stateDir, busy)?.pid as number;
    await holding(
      () => route(0),
      async () => ((await workers()).length === 0 ? true : undefined),
      'the last worker to go once its request finished',
    );
    await pollUntil(() => (isProcessAlive(pid) ? undefined : true), {
      timeoutMs: 15_000,
      description: 'its process to end',
    });
    // Billed as queue workers are: each one's usage starts and stops once.
    const billed = await pollUntil(
      async () => {
        const byWorker = new Map<unknown, unknown[]>();
        for (const event of (await p.usageEvents()).values())
          if (event['endpointId'] === endpointId)
            byWorker.set(event['workerId'], [...(byWorker.get(event['workerId']) ?? []), event['type']]);
        const done = [...byWorker.values()].filter((types) => types.includes('worker.stopped'));
        return byWorker.size === 3 && done.length === 3 ? byWorker : undefined;
      },
      { timeoutMs: 15_000, description: 'every worker started and stopped in usage' },
    );
    for (const types of billed.values()) expect([...types].sort()).toEqual(['worker.started', 'worker.stopped']);
  }, 90_000);

  it('drains an idle worker before it goes: kept while a job-router has not seen it drain or has a request on it', async () => {
    const worker = await holding(
      () => route(1),
      async () => (await workers()).find((row) => row.serviceAddress !== null),
      'a worker for a waiting request',
    );
    // Idle now: it is retired (no job-router gives it a new request) but kept, since this one has not read the mark.
    await holding(
      () => route(0, {}, { unaware: true }),
      async () => ((await draining()).includes(worker.id) ? true : undefined),
      'the idle worker to drain',
    );
    const since = (await retirement.retiredAmong(endpointId, [worker.id])).get(worker.id) as number;
    const hold = async (load: () => Promise<void>, untilMs: number) => {
      while (Date.now() < untilMs) {
        await load();
        p.scheduler().loop.trigger();
        await p.scheduler().loop.settled();
        expect((await workers()).map((row) => row.id)).toEqual([worker.id]);
      }
    };
    await hold(() => route(0, {}, { unaware: true }), since + LB_SNAPSHOT_STALE_MS + 1_000);
    // Seen to drain, but a request routed to it just before is still in flight.
    await hold(() => route(0, { [worker.id]: 1 }), Date.now() + 1_000);
    await holding(
      () => route(0),
      async () => ((await workers()).length === 0 ? true : undefined),
      'the drained worker to go',
    );
  }, 60_000);
});
