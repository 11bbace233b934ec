import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pollUntil } from '@runplane/testing';
import { exchange } from './exchange';

type Route = (request: IncomingMessage, body: string, response: ServerResponse) => void;

/** A real HTTP server answering each request with `route`; `held` keeps the responses it never ends. */
async function serve(route: Route): Promise<{ url: string; server: Server; held: ServerResponse[] }> {
  const held: ServerResponse[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => route(request, Buffer.concat(chunks).toString('utf8'), response));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server, held };
}

describe('exchange', () => {
  let running: Awaited<ReturnType<typeof serve>> | undefined;

  afterEach(async () => {
    for (const response of running?.held ?? []) response.destroy();
    running?.server.closeAllConnections();
    running?.server.close();
    running = undefined;
  });

  it('sends the method, path, query, headers and body, and reads a chunked answer whole', async () => {
    running = await serve((request, body, response) => {
      response.writeHead(201, { 'content-type': 'application/json' });
      response.write(
        JSON.stringify({ method: request.method, url: request.url, token: request.headers.authorization }),
      );
      response.write('\n');
      response.end(body);
    });
    const answer = await exchange({
      url: `${running.url}/v2/ep1/job-done/w1/j1?gpu=A100&isStream=false`,
      method: 'POST',
      headers: { authorization: 'wkr_x', 'content-type': 'application/x-www-form-urlencoded' },
      body: '{"output":"é"}',
    });
    expect(answer.status).toBe(201);
    expect(answer.contentType).toBe('application/json');
    const [head, echoed] = answer.body.split('\n');
    expect(JSON.parse(head ?? '')).toEqual({
      method: 'POST',
      url: '/v2/ep1/job-done/w1/j1?gpu=A100&isStream=false',
      token: 'wkr_x',
    });
    expect(echoed).toBe('{"output":"é"}');
  });

  it('answers an empty 204 with no content type', async () => {
    running = await serve((_request, _body, response) => {
      response.writeHead(204);
      response.end();
    });
    await expect(exchange({ url: `${running.url}/take`, method: 'GET', headers: {} })).resolves.toEqual({
      status: 204,
      contentType: '',
      body: '',
    });
  });

  it('ends a request held by the server when its signal aborts, and rejects with the reason', async () => {
    const server = await serve((_request, _body, response) => server.held.push(response));
    running = server;
    const controller = new AbortController();
    const taking = exchange({ url: `${server.url}/take`, method: 'GET', headers: {}, signal: controller.signal });
    await pollUntil(() => server.held.length > 0, { description: 'the request held by the server' });
    controller.abort(new Error('worker stopping'));
    await expect(taking).rejects.toThrow('worker stopping');
  });

  it('rejects at once when its signal has already aborted, sending nothing', async () => {
    let requests = 0;
    running = await serve((_request, _body, response) => {
      requests += 1;
      response.end();
    });
    const controller = new AbortController();
    controller.abort();
    await expect(
      exchange({ url: `${running.url}/take`, method: 'GET', headers: {}, signal: controller.signal }),
    ).rejects.toThrow('aborted');
    expect(requests).toBe(0);
  });

  it('gives up on an answer whose headers do not come within the timeout', async () => {
    const server = await serve((_request, _body, response) => server.held.push(response));
    running = server;
    await expect(
      exchange({ url: `${server.url}/take`, method: 'GET', headers: {}, timeoutMs: 200 }),
    ).rejects.toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
  });

  it('rejects, not throws, on a URL that does not parse', async () => {
    await expect(exchange({ url: 'not a url', method: 'GET', headers: {} })).rejects.toThrow('Invalid URL');
  });

  it('rejects when nothing listens at the URL', async () => {
    const closed = await serve(() => undefined);
    const { url } = closed;
    closed.server.close();
    await once(closed.server, 'close');
    await expect(exchange({ url: `${url}/take`, method: 'GET', headers: {} })).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  });
});
