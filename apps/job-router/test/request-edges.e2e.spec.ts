import { MAX_JSON_DEPTH } from '@runplane/http';
import { connect, type Socket } from 'node:net';
import { request } from 'undici';
import { bearer, type JobRouterHarness, startJobRouter } from './harness';

/** Everything the server writes on a socket until it closes it: status line, headers and JSON body. */
function answerOf(socket: Socket): Promise<{ status: number; headers: string; body: unknown }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString();
      const [headers = '', body = ''] = raw.split('\r\n\r\n');
      try {
        resolve({ status: Number(headers.split(' ')[1]), headers: headers.toLowerCase(), body: JSON.parse(body) });
      } catch {
        reject(new Error(`no JSON answer before the connection closed: ${JSON.stringify(raw.slice(0, 300))}`));
      }
    });
  });
}

/** JSON text of arrays nested `depth` deep (written out: JSON.stringify itself overflows the stack on it). */
const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const json = { 'content-type': 'application/json' };

describe('job-router: request edges', () => {
  let h: JobRouterHarness;
  let secret: string;
  let endpointId: string;
  let port: number;

  beforeAll(async () => {
    h = await startJobRouter('jr-edges', { BODY_TIMEOUT_MS: '500' });
    const account = await h.accountWithKey();
    secret = account.secret;
    endpointId = await h.endpoint(account.accountId);
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const address = h.app.getHttpServer().address();
    port = typeof address === 'object' && address ? address.port : 0;
  });
  afterAll(() => h.close());

  const tooDeep = `body: nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`;

  it('refuses a /run input nested 5,000 deep with 400 in the job shape, and stores nothing', async () => {
    const res = await h.inject({ method: 'POST', url: `/v2/${endpointId}/run`, headers: { ...bearer(secret), ...json }, payload: `{"input":{"a":${nested(5_000)}}}` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: tooDeep, code: 'VALIDATION_FAILED', requestId: res.headers['x-request-id'] });
    const health = await h.inject({ method: 'GET', url: `/v2/${endpointId}/health`, headers: bearer(secret) });
    expect(health.json()).toMatchObject({ jobs: { inQueue: 0 } });
    const shallow = await h.inject({ method: 'POST', url: `/v2/${endpointId}/run`, headers: { ...bearer(secret), ...json }, payload: `{"input":{"a":${nested(MAX_JSON_DEPTH - 2)}}}` });
    expect(shallow.statusCode).toBe(200);
  });

  it('refuses a worker result nested 5,000 deep with 400, whatever its content type', async () => {
    const token = await h.workerToken(endpointId, 'w-deep');
    const res = await h.inject({
      method: 'POST',
      url: `/v2/${endpointId}/job-done/w-deep/some-job`,
      headers: { ...bearer(token), 'content-type': 'application/x-www-form-urlencoded' },
      payload: `{"output":${nested(5_000)}}`,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: tooDeep, code: 'VALIDATION_FAILED', requestId: res.headers['x-request-id'] });
  });

  it('answers bad percent-encoding and over-long path ids in the job shape with the request id', async () => {
    const badUrl = await request(`http://127.0.0.1:${port}/v2/${endpointId}/status/%E0%A4%A`, { headers: bearer(secret) });
    const badUrlBody = await badUrl.body.json();
    expect(badUrl.statusCode).toBe(400);
    expect(badUrlBody).toEqual({ error: 'Request URL is not validly percent-encoded', code: 'VALIDATION_FAILED', requestId: badUrl.headers['x-request-id'] });
    const longId = await request(`http://127.0.0.1:${port}/v2/${endpointId}/job-take/${'w'.repeat(101)}`, { headers: bearer(secret) });
    expect(longId.statusCode).toBe(404);
    expect(await longId.body.json()).toEqual({ error: 'Not found', code: 'NOT_FOUND', requestId: longId.headers['x-request-id'] });
  });

  it('answers a URL over 16 KB with 431 in the job shape', async () => {
    const socket = connect(port, '127.0.0.1');
    socket.write(`GET /v2/${endpointId}/status/${'j'.repeat(17 * 1024)} HTTP/1.1\r\nhost: x\r\n\r\n`);
    const answer = await answerOf(socket);
    expect(answer.status).toBe(431);
    expect(answer.body).toMatchObject({ error: expect.any(String), code: 'HEADERS_TOO_LARGE', requestId: expect.any(String) });
  });

  it('answers a /run body trickled slower than BODY_TIMEOUT_MS with 408 and closes its connection', async () => {
    const declared = 1024 * 1024;
    const socket = connect(port, '127.0.0.1');
    socket.write(
      `POST /v2/${endpointId}/run HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${secret}\r\ncontent-type: application/json\r\n` +
        `content-length: ${declared}\r\nx-request-id: trickle-1\r\n\r\n{"input":"`,
    );
    // One byte every 20 ms: the declared megabyte would take almost six hours.
    let sent = 0;
    const trickle = setInterval(() => {
      if (socket.writable) socket.write('x', () => (sent += 1));
    }, 20);
    try {
      const answer = await answerOf(socket);
      expect(sent).toBeLessThan(declared);
      expect(answer.status).toBe(408);
      expect(answer.body).toEqual({ error: 'Request not received in time', code: 'REQUEST_TIMEOUT', requestId: 'trickle-1' });
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
  });
});
