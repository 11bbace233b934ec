// Load-balancing endpoints when workers fail or are missing: 502 for the requests of a worker that dies (taken out at
// once, nothing retried), 503 with the reason after the bounded wait, 429 past the endpoint's limits.
import { LoadBalancerRequestCounts } from '@runplane/jobs';
import { WorkerStateStore } from '@runplane/endpoints';
import { closeRedis, createRedis } from '@runplane/queue';
import { pollUntil, TEST_REDIS_URL } from '@runplane/testing';
import { bearer } from './harness';
import { chunkedUpload, type LbHarness, lbHost, startLbHarness } from './load-balancer-setup';
import { lbCall, LbWorkerPool } from './load-balancer-worker';

const BODY_MAX = 64 * 1024;
let lb: LbHarness;
let owner: { accountId: string; secret: string };
const workers = new LbWorkerPool();
const worker = workers.start;

beforeAll(async () => {
  lb = await startLbHarness('lb-failures', {
    LB_WAIT_MS: '700',
    JOB_RATE_LIMITS: 'lb=1000/2',
    LB_MAX_BODY_BYTES: String(BODY_MAX),
  });
  owner = await lb.h.accountWithKey();
});

afterAll(async () => {
  await workers.killAll();
  await lb.h.close();
});

const call = (endpointId: string, path = '/generate') =>
  lbCall(lb.port, {
    host: lbHost(endpointId),
    method: path === '/generate' ? 'POST' : 'GET',
    path,
    headers: { ...bearer(owner.secret), 'content-type': 'application/json' },
    body: path === '/generate' ? '{"prompt":"x"}' : undefined,
  });

/** The scheduler's published worker states of an endpoint (its autoscaler writes them each pass). */
async function publishStates(endpointId: string, entries: Parameters<WorkerStateStore['replace']>[1]): Promise<void> {
  const redis = createRedis(TEST_REDIS_URL, { keyPrefix: lb.h.config.REDIS_PREFIX });
  try {
    await new WorkerStateStore(redis).replace(endpointId, entries);
  } finally {
    await closeRedis(redis);
  }
}

describe('load-balancing failures', () => {
  it("fails a dead worker's requests in flight with 502 and takes it out at once", async () => {
    const endpointId = await lb.endpoint(owner.accountId);
    const doomed = await worker('doomed');
    await lb.addWorker(endpointId, doomed);
    const inFlight = call(endpointId, '/hold');
    await pollUntil(() => doomed.held.length === 1);
    const spare = await worker('spare');
    await lb.addWorker(endpointId, spare);
    await doomed.kill();

    const failed = await inFlight;
    expect(failed.status).toBe(502);
    expect(failed.json()).toMatchObject({ code: 'WORKER_CONNECTION_FAILED', requestId: expect.any(String) });
    for (let i = 0; i < 3; i += 1) expect((await call(endpointId)).json()).toMatchObject({ worker: 'spare' });
  });

  it('answers 503 after the wait when no worker exists yet', async () => {
    const endpointId = await lb.endpoint(owner.accountId);
    const answer = await call(endpointId);
    expect(answer.status).toBe(503);
    expect(answer.json()).toEqual({
      error: expect.stringContaining('No worker of this endpoint is running yet'),
      code: 'NO_READY_WORKER',
      reason: 'NO_WORKERS',
      requestId: expect.any(String),
    });
    const counts = new LoadBalancerRequestCounts(lb.h.redis, lb.h.config.REDIS_PREFIX);
    await pollUntil(async () => (await counts.read(endpointId)).failed === 1);
  });

  it('answers 503 "starting" while the workers answer 204 or not at all', async () => {
    const endpointId = await lb.endpoint(owner.accountId);
    await lb.addWorker(endpointId, await worker('warming', 'initializing'));
    await lb.addWorker(endpointId, null, { observedPhase: 'CREATING' });
    const answer = await call(endpointId);
    expect(answer.status).toBe(503);
    expect(answer.json()).toMatchObject({
      reason: 'WORKERS_STARTING',
      error: 'Workers of this endpoint are starting: 1 initializing (health check answers 204), 1 not answering yet',
    });
  });

  it('answers 503 "no capacity" with the placement refusal', async () => {
    const endpointId = await lb.endpoint(owner.accountId);
    await publishStates(endpointId, [
      { workerId: 'throttled-1', state: 'throttled', reason: 'No machine has a free NVIDIA A40 in EU-RO-1' },
    ]);
    const answer = await call(endpointId);
    expect(answer.status).toBe(503);
    expect(answer.json()).toMatchObject({
      reason: 'NO_CAPACITY',
      error: 'No capacity for a worker of this endpoint: No machine has a free NVIDIA A40 in EU-RO-1',
    });
  });

  it('answers 503 "crash-looping" with the exit reason', async () => {
    const endpointId = await lb.endpoint(owner.accountId);
    await publishStates(endpointId, [
      { workerId: 'w1', state: 'unhealthy', reason: 'exited with code 1: CUDA out of memory' },
    ]);
    const answer = await call(endpointId);
    expect(answer.status).toBe(503);
    expect(answer.json()).toMatchObject({
      reason: 'CRASH_LOOP',
      error: 'Workers of this endpoint keep crashing: exited with code 1: CUDA out of memory',
    });
  });

  it("answers 429 past the endpoint's concurrency limit, in the job API's shape", async () => {
    const endpointId = await lb.endpoint(owner.accountId);
    const busy = await worker('busy');
    await lb.addWorker(endpointId, busy);
    const held = [call(endpointId, '/hold'), call(endpointId, '/hold')];
    await pollUntil(() => busy.held.length === 2);
    const refused = await call(endpointId);
    expect(refused.status).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'RATE_LIMITED', error: expect.any(String) });
    busy.releaseHeld();
    expect((await Promise.all(held)).map((answer) => answer.status)).toEqual([200, 200]);
    expect((await call(endpointId)).status).toBe(200);
  });

  it('answers 413 to a body over LB_MAX_BODY_BYTES, declared or streamed', async () => {
    const endpointId = await lb.endpoint(owner.accountId);
    const sink = await worker('sink');
    await lb.addWorker(endpointId, sink);
    const declared = await lbCall(lb.port, {
      host: lbHost(endpointId),
      method: 'POST',
      path: '/upload',
      headers: bearer(owner.secret),
      body: 'x'.repeat(BODY_MAX + 1),
    });
    expect(declared.status).toBe(413);
    expect(declared.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(sink.served).toEqual([]);

    const streamed = await new Promise<number>((resolve, reject) => {
      const call = chunkedUpload(lb, owner.secret, endpointId);
      call.on('response', (response) => resolve(response.statusCode ?? 0));
      call.on('error', reject);
      call.write(Buffer.alloc(BODY_MAX, 'x'));
      call.write(Buffer.alloc(1024, 'x'));
    });
    expect(streamed).toBe(413);
  });

  it("counts requests by outcome and their waits in the job-router's metrics", async () => {
    const served = await lb.endpoint(owner.accountId);
    await lb.addWorker(served, await worker('metered'));
    const empty = await lb.endpoint(owner.accountId);
    expect((await call(served)).status).toBe(200);
    expect((await call(empty)).status).toBe(503);
    const metrics = async () => (await lb.h.inject({ method: 'GET', url: '/metrics' })).body;
    const line = (name: string, labels: string, value: number) =>
      new RegExp(`^${name}\\{[^}]*${labels}[^}]*\\} ${value}$`, 'm');
    const completed = line('runplane_lb_requests_total', `endpoint="${served}",outcome="completed"`, 1);
    await pollUntil(async () => completed.test(await metrics()));
    const text = await metrics();
    expect(text).toMatch(line('runplane_lb_requests_total', `endpoint="${empty}",outcome="failed"`, 1));
    expect(text).toMatch(line('runplane_lb_wait_seconds_count', `endpoint="${empty}"`, 1));
    expect(text).not.toMatch(new RegExp(`runplane_lb_wait_seconds_count\\{[^}]*endpoint="${served}"`));
  });
});
