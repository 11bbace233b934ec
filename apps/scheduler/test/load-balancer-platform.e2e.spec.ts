// A load-balancing endpoint end to end on the local driver: the first request to <endpointId>.<RUNPLANE_LB_DOMAIN>
// reaches the job-router with no worker up, waits while the scheduler scales the endpoint from 0 (lb.demand), and is
// answered by the worker's own server on the loopback port the scheduler gave it; the job API's /health then counts
// the request, and the idle worker is removed again.
import { request as httpRequest } from 'node:http';
import { pollUntil } from '@runplane/testing';
import { type PlatformHarness, startPlatform } from './harness';
import { createLbEndpoint } from './workloads';

const LB_DOMAIN = 'lb.test';

/** RunPod's example load-balancing worker: /ping for health, a POST route, on PORT (= PORT_HEALTH, 80 by default). */
const SERVER = `
const http = require('node:http');
http.createServer((req, res) => {
  if (req.url === '/ping') return res.end('{"status":"healthy"}');
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => res.end(JSON.stringify({ path: req.url, method: req.method, body, port: process.env.PORT })));
}).listen(Number(process.env.PORT), '127.0.0.1');
`;

function call(port: number, host: string, key: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify({ prompt: 'hello' });
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/generate',
        headers: {
          host,
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(payload)),
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.once('error', reject);
    req.end(payload);
  });
}

describe('a load-balancing endpoint scaled from zero by its first request', () => {
  let p: PlatformHarness;
  let endpointId: string;

  beforeAll(async () => {
    p = await startPlatform('sched-lb-platform', {
      jobRouter: true,
      jobRouterEnv: { RUNPLANE_LB_DOMAIN: LB_DOMAIN, LB_WAIT_MS: '60000', LB_REFRESH_INTERVAL_MS: '100' },
    });
    endpointId = await createLbEndpoint(p, SERVER, { workersMax: 2, idleTimeout: 3, scalerValue: 4 });
  }, 180_000);

  afterAll(async () => {
    await p?.close();
  }, 60_000);

  it('answers the first request from a worker started for it, counts it on /health, then scales back to 0', async () => {
    expect(await p.db.pod.count({ where: { endpointId } })).toBe(0);
    const jobPort = Number(new URL(p.jobApiUrl).port);
    const answering = call(jobPort, `${endpointId}.${LB_DOMAIN}`, p.secret);
    // The worker's row (with its address) exists before the request can be answered, and for idleTimeout after.
    const worker = await pollUntil(
      async () => (await p.db.pod.findFirst({ where: { endpointId, serviceAddress: { not: null } } })) ?? undefined,
      { timeoutMs: 30_000, intervalMs: 50, description: 'the worker started for the request' },
    );
    const answer = await answering;
    expect(answer.status).toBe(200);
    const port = (worker?.serviceAddress as string).split(':')[1];
    expect(JSON.parse(answer.body)).toEqual({ path: '/generate', method: 'POST', body: '{"prompt":"hello"}', port });
    // One port serves both: PORT and PORT_HEALTH are 80 by default, so the worker got one loopback port for them.
    expect(worker?.healthAddress).toBe(worker?.serviceAddress);

    const health = await pollUntil(
      async () => {
        const res = await fetch(`${p.jobApiUrl}/v2/${endpointId}/health`, { headers: { authorization: p.secret } });
        const body = (await res.json()) as { jobs: { completed: number } };
        return body.jobs.completed === 1 ? body : undefined;
      },
      { timeoutMs: 15_000, description: '/health to count the request' },
    );
    expect(health.jobs).toEqual({ completed: 1, failed: 0, inProgress: 0, inQueue: 0, retried: 0 });
    const run = await fetch(`${p.jobApiUrl}/v2/${endpointId}/run`, {
      method: 'POST',
      headers: { authorization: p.secret, 'content-type': 'application/json' },
      body: JSON.stringify({ input: {} }),
    });
    expect(run.status).toBe(409);
    expect(((await run.json()) as { error: string }).error).toContain(`https://${endpointId}.${LB_DOMAIN}/<path>`);

    await pollUntil(async () => ((await p.db.pod.count({ where: { endpointId } })) === 0 ? true : undefined), {
      timeoutMs: 30_000,
      description: 'the idle worker to be removed',
    });
  }, 120_000);
});
