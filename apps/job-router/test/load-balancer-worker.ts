// A load-balancing worker in the shape of RunPod's example (a FastAPI app on PORT): GET /ping for health, a POST
// route, a streaming SSE route and a WebSocket echo, plus routes that let a test hold an answer or watch a body arrive.
import {
  createServer,
  type IncomingMessage,
  request as httpRequest,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

/** What /ping answers: 200 ready, 204 initializing, 503 unhealthy. */
export type PingState = 'ready' | 'initializing' | 'unhealthy';

const PING_STATUS: Record<PingState, number> = { ready: 200, initializing: 204, unhealthy: 503 };

/** A worker's HTTP server on a free loopback port. */
export interface LbWorker {
  readonly name: string;
  /** "host:port", as the scheduler writes it in Pod.serviceAddress and Pod.healthAddress. */
  readonly address: string;
  ping: PingState;
  /** Where it answers health checks (HEALTH_CHECK_PATH; RunPod's default /ping). */
  healthPath: string;
  /** Health checks it answered. */
  pings: number;
  /** Requests served (any route but /ping), by path. */
  readonly served: string[];
  /** The Authorization headers it saw (never expected). */
  readonly authorizations: string[];
  /** Requests /hold holds open now. */
  readonly held: ServerResponse[];
  /** Whether a held request's client went away before it was answered. */
  aborted: number;
  /** WebSockets open on it now. */
  openSockets(): number;
  /** Bytes /upload has received so far. */
  uploaded: number;
  /** Sends the next SSE event to every /stream client (the route waits for this between events). */
  nextEvent(): void;
  /** Ends every held request with 200. */
  releaseHeld(): void;
  /** Stops the server at once, resetting every connection (a crashed worker). */
  kill(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

/** The workers one spec starts, all killed at its end. */
export class LbWorkerPool {
  private readonly started: LbWorker[] = [];

  /** Starts a worker named `name` whose health answers `ping`, to be killed by {@link killAll}. */
  readonly start = async (name: string, ping: PingState = 'ready'): Promise<LbWorker> => {
    const worker = await startLbWorker(name, ping);
    this.started.push(worker);
    return worker;
  };

  async killAll(): Promise<void> {
    await Promise.all(this.started.map((worker) => worker.kill()));
  }
}

/** Starts a worker named `name` whose health answers `ping`. */
export async function startLbWorker(name: string, ping: PingState = 'ready'): Promise<LbWorker> {
  const streams = new Set<() => void>();
  const worker: LbWorker = {
    name,
    address: '',
    ping,
    healthPath: '/ping',
    pings: 0,
    served: [],
    authorizations: [],
    held: [],
    aborted: 0,
    uploaded: 0,
    nextEvent: () => [...streams].forEach((send) => send()),
    releaseHeld: () => worker.held.splice(0).forEach((response) => json(response, 200, { worker: name })),
    kill: async () => undefined,
    openSockets: () => 0,
  };
  const server: Server = createServer((request, response) => void route(worker, streams, request, response));
  const sockets = new WebSocketServer({ noServer: true });
  worker.openSockets = () => sockets.clients.size;
  server.on('upgrade', (request, socket, head) => {
    sockets.handleUpgrade(request, socket, head, (ws) => {
      ws.on('message', (data, isBinary) => ws.send(isBinary ? data : `${name}:${String(data)}`));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  Object.assign(worker, { address: `127.0.0.1:${port}` });
  worker.kill = async () => {
    for (const client of sockets.clients) client.terminate();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return worker;
}

async function route(
  worker: LbWorker,
  streams: Set<() => void>,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const path = request.url ?? '/';
  if (path === worker.healthPath) {
    worker.pings += 1;
    return void response.writeHead(PING_STATUS[worker.ping]).end();
  }
  worker.served.push(path);
  if (request.headers.authorization) worker.authorizations.push(request.headers.authorization);
  if (path === '/generate' && request.method === 'POST') {
    const body = JSON.parse(await readBody(request)) as { prompt?: string };
    return json(response, 200, { generated_text: `${worker.name} says ${body.prompt ?? ''}`, worker: worker.name });
  }
  if (path.startsWith('/method')) {
    const body = await readBody(request);
    response.writeHead(200, { 'content-type': 'application/json', 'x-worker': worker.name });
    return void response.end(
      request.method === 'HEAD' ? undefined : JSON.stringify({ method: request.method, path, body }),
    );
  }
  if (path === '/upload') {
    request.on('data', (chunk: Buffer) => (worker.uploaded += chunk.length));
    request.on('end', () => json(response, 200, { bytes: worker.uploaded }));
    return;
  }
  if (path === '/stream') return sse(worker, streams, response);
  if (path === '/hold') {
    worker.held.push(response);
    response.on('close', () => {
      if (!response.writableFinished) worker.aborted += 1;
    });
    return;
  }
  json(response, 404, { detail: 'Not Found' });
}

/** Three SSE events, each sent when the test calls nextEvent(), then the end of the stream. */
function sse(worker: LbWorker, streams: Set<() => void>, response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let sent = 0;
  const send = (): void => {
    sent += 1;
    response.write(`data: ${JSON.stringify({ token: sent, worker: worker.name })}\n\n`);
    if (sent === 3) {
      streams.delete(send);
      response.end();
    }
  };
  streams.add(send);
  response.on('close', () => streams.delete(send));
}

/** One HTTP request to the job-router on `port` with the given Host, answered in full. */
export interface LbAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json(): Record<string, unknown>;
}

/** Sends a request with a Host of the load-balancing domain and reads the whole answer. */
export function lbCall(
  port: number,
  options: { host: string; method?: string; path?: string; headers?: Record<string, string>; body?: string },
): Promise<LbAnswer> {
  return new Promise((resolve, reject) => {
    const call = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path ?? '/',
        headers: {
          ...options.headers,
          host: options.host,
          // Node's client sends a DELETE or OPTIONS body without a length unless told.
          ...(options.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(options.body)) }),
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text,
            json: () => JSON.parse(text) as Record<string, unknown>,
          }),
        );
      },
    );
    call.on('error', reject);
    call.end(options.body);
  });
}
