import { randomUuid } from '@runplane/db';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { type Duplex, type Readable, Transform } from 'node:stream';
import { DomainError } from '@runplane/contracts';
import type { WorkerStateEntry } from '@runplane/endpoints';
import {
  type ApiKeyAuthenticator,
  authorizeApiKey,
  REQUEST_ID_HEADER,
  type RequestInterceptor,
  type ReverseProxy,
} from '@runplane/http';
import { RateLimitedError, type Release } from '../limits/job-rate-limiter';
import type { LimitedOperation } from '../limits/limit-table';
import type { UpstreamWorker } from './endpoint-pool';
import { answerOf, LbAnswer, writeAnswer, writeUpgradeAnswer } from './lb-answers';
import type { LbEndpointDirectory } from './lb-endpoints';
import type { LbMetrics } from './lb-metrics';
import { LbExchange } from './lb-exchange';
import { endpointIdOfHost } from './lb-host';
import type { LbEndpoint, LoadBalancer } from './load-balancer';
import { explainUnavailable, unavailableAnswer } from './unavailable';
import { DEFAULT_HEALTH_CHECK_PATH } from './worker-health';

/** What the load-balancing proxy is built from. */
export interface LbProxyDeps {
  apiKeys: ApiKeyAuthenticator;
  endpoints: LbEndpointDirectory;
  limiter: { acquire(endpointId: string, operation: LimitedOperation): Promise<Release> };
  balancer: LoadBalancer;
  /** The scheduler's worker states of an endpoint (why none is ready). */
  states: { read(endpointId: string): Promise<readonly WorkerStateEntry[]> };
  proxy: ReverseProxy;
  metrics: LbMetrics;
  onError: (error: unknown) => void;
}

/** The proxy's settings (job-router config). */
export interface LbProxySettings {
  domain: string;
  waitMs: number;
  maxBodyBytes: number;
}

function bodyTooLarge(maxBodyBytes: number): DomainError {
  return new DomainError('PAYLOAD_TOO_LARGE', `Request body is larger than ${maxBodyBytes} bytes`);
}

/**
 * Load-balancing endpoints' data plane: a request whose Host is `<endpointId>.<domain>` is authenticated with the job
 * API's keys, counted against the endpoint's `lb` limits and proxied, body and answer streaming both ways, to the
 * endpoint's ready worker with the fewest requests in flight, waiting a bounded time for one. The API key is not
 * forwarded. Nothing is retried: a worker whose connection fails is taken out and the request answered 502.
 */
export class LoadBalancerProxy implements RequestInterceptor {
  constructor(
    private readonly deps: LbProxyDeps,
    private readonly settings: LbProxySettings,
  ) {}

  claims(request: IncomingMessage): boolean {
    return this.endpointOf(request) !== null;
  }

  handle(request: IncomingMessage, response: ServerResponse, requestId: string): void {
    response.setHeader(REQUEST_ID_HEADER, requestId);
    this.serve(request, response, requestId).catch((error: unknown) => this.refuse(response, error, requestId));
  }

  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const requestId = randomUuid();
    this.serveUpgrade(request, socket, head, requestId).catch((error: unknown) => {
      this.countRateLimited(request, error);
      const answer = answerOf(error, requestId);
      if (answer.status >= 500 && !(error instanceof LbAnswer)) this.deps.onError(error);
      writeUpgradeAnswer(socket, answer);
    });
  }

  /** A 429 comes after the endpoint was found the caller's: its id is a bounded label like the others. */
  private countRateLimited(request: IncomingMessage, error: unknown): void {
    if (error instanceof RateLimitedError) this.deps.metrics.ended(this.endpointOf(request) ?? '', 'rate_limited');
  }

  private endpointOf(request: IncomingMessage): string | null {
    return endpointIdOfHost(request.headers.host, this.settings.domain);
  }

  private refuse(response: ServerResponse, error: unknown, requestId: string): void {
    this.countRateLimited(response.req, error);
    const answer = answerOf(error, requestId);
    if (answer.status >= 500 && !(error instanceof LbAnswer)) this.deps.onError(error);
    writeAnswer(response, answer);
  }

  /** Authenticates, checks the endpoint and takes a limit slot; then the request counts as the endpoint's traffic. */
  private async admit(request: IncomingMessage): Promise<LbExchange> {
    const endpointId = this.endpointOf(request) ?? '';
    const principal = await authorizeApiKey(this.deps.apiKeys, request.headers.authorization, 'write', endpointId);
    await this.deps.endpoints.require(principal.accountId, endpointId);
    const release = await this.deps.limiter.acquire(endpointId, 'lb');
    let entry: LbEndpoint;
    try {
      entry = await this.deps.balancer.endpoint(endpointId);
    } catch (error) {
      await release();
      throw error;
    }
    return new LbExchange(entry, release, {
      onEnd: (outcome) => this.deps.metrics.ended(endpointId, outcome),
      onError: this.deps.onError,
    });
  }

  private async serve(request: IncomingMessage, response: ServerResponse, requestId: string): Promise<void> {
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > this.settings.maxBodyBytes) throw bodyTooLarge(this.settings.maxBodyBytes);
    const exchange = await this.admit(request);
    response.once('close', () => exchange.end(response.headersSent));
    // The client may have left while it was admitted, before the listener above.
    if (response.closed) exchange.end(false);
    const worker = await this.workerOf(exchange);
    if (!worker) return;
    delete request.headers.authorization;
    const body =
      request.headers['content-length'] === undefined ? this.counted(request, response, exchange) : undefined;
    const proxied = this.deps.proxy.web(request, response, {
      target: targetOf(request, worker),
      ...(body ? { body } : {}),
      onError: (error) => {
        if (!exchange.settle('failed')) return;
        exchange.entry.pool.markDown(worker);
        writeAnswer(response, workerFailed(error, requestId));
      },
    });
    exchange.onRefused = () => proxied.abort();
  }

  /** The ready worker, waiting up to `waitMs` for one; null when the client left; a 503 answer when none came. */
  private async workerOf(exchange: LbExchange): Promise<UpstreamWorker | null> {
    const { pool, traffic } = exchange.entry;
    if (exchange.closed.aborted) return null;
    exchange.worker = pool.take();
    if (exchange.worker) return exchange.worker;
    const startedAt = Date.now();
    traffic.waiting += 1;
    let worker: UpstreamWorker | null;
    try {
      this.deps.balancer.waiting(exchange.entry).catch(this.deps.onError);
      worker = await pool.waitAndTake(this.settings.waitMs, exchange.closed);
    } finally {
      traffic.waiting -= 1;
    }
    this.deps.metrics.waited(pool.endpointId, (Date.now() - startedAt) / 1000);
    // A worker that became ready as the client left: the exchange has ended without it, give it back here.
    if (worker && exchange.closed.aborted) pool.release(worker);
    if (exchange.closed.aborted) return null;
    exchange.worker = worker;
    if (worker) return worker;
    exchange.settle('failed');
    const states = await this.deps.states.read(pool.endpointId).catch(() => []);
    throw unavailableAnswer(explainUnavailable(pool.snapshot(), states, Date.now() - startedAt));
  }

  /** A chunked body, passed on while it stays within LB_MAX_BODY_BYTES; past that the request is answered 413. */
  private counted(request: IncomingMessage, response: ServerResponse, exchange: LbExchange): Readable {
    const max = this.settings.maxBodyBytes;
    let bytes = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        bytes += chunk.length;
        if (bytes <= max) return callback(null, chunk);
        callback();
        if (!exchange.settle('refused')) return;
        exchange.onRefused();
        writeAnswer(response, answerOf(bodyTooLarge(max), String(response.getHeader(REQUEST_ID_HEADER) ?? '')));
        response.once('finish', () => request.socket.destroy());
      },
    });
    return request.pipe(counter);
  }

  private async serveUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer, requestId: string): Promise<void> {
    const exchange = await this.admit(request);
    socket.once('close', () => exchange.end(true));
    if (socket.destroyed) exchange.end(false);
    const worker = await this.workerOf(exchange);
    if (!worker) return;
    delete request.headers.authorization;
    this.deps.proxy.ws(request, socket, head, {
      target: worker.row.serviceAddress ?? '',
      onError: (error) => {
        if (!exchange.settle('failed')) return;
        exchange.entry.pool.markDown(worker);
        // Once the worker's 101 went out the socket speaks WebSocket: it can only be closed.
        if ((socket as Socket).bytesWritten > 0) socket.destroy();
        else writeUpgradeAnswer(socket, workerFailed(error, requestId));
      },
    });
  }
}

/**
 * Where a request goes: the worker's server (PORT), but a GET of its HEALTH_CHECK_PATH (the endpoint's `health` request
 * URL) goes to its health server (PORT_HEALTH), which may listen apart.
 */
function targetOf(request: IncomingMessage, worker: UpstreamWorker): string {
  const { serviceAddress, healthAddress, healthCheckPath } = worker.row;
  const path = (request.url ?? '/').split('?')[0];
  const isHealth = request.method === 'GET' && path === (healthCheckPath ?? DEFAULT_HEALTH_CHECK_PATH);
  return (isHealth ? healthAddress : serviceAddress) ?? serviceAddress ?? '';
}

/** The 502 of a request whose worker connection failed (refused, reset, silent too long). */
function workerFailed(error: NodeJS.ErrnoException, requestId: string): LbAnswer {
  const cause = error.code ?? error.message;
  return new LbAnswer(502, {
    error: `The worker's connection failed (${cause}); the request was not retried`,
    code: 'WORKER_CONNECTION_FAILED',
    requestId,
  });
}
