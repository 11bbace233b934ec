import type { DynamicModule, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger, MetricsRegistry } from '@runplane/observability';
import type { Socket } from 'node:net';
import { type FastifyBodyParser, type FastifyInstance, LogController } from 'fastify';
import { ApiExceptionFilter } from '../errors/api-exception.filter';
import type { ErrorStyle } from '../errors/error-body';
import { type EdgeErrorWriter, EdgeErrors } from './edge-errors';
import { SHUTDOWN_DELAY_MS_DEFAULT, shutdownOnSignals, trackDraining } from './graceful-shutdown';
import { jsonDepthError } from './json-depth';
import { PinoNestLogger } from './nest-logger';
import { rejectNulCharacters } from './nul-guard';
import { lazyRequestLogger } from './request-logger';
import { REQUEST_ID_HEADER, requestIdFor } from './request-id';

/** What every Runplane HTTP service is built from. */
export interface HttpAppOptions {
  module: Type | DynamicModule;
  logger: Logger;
  errorStyle: ErrorStyle;
  bodyLimitBytes: number;
  metrics?: MetricsRegistry;
  /**
   * `refuse` (the default): a NUL character in a body answers 400, as Postgres text cannot hold it. `keep`: bodies are
   * taken as they are, for a service that keeps them out of Postgres (the job-router's jobs and results live in Redis);
   * path ids and query values are refused all the same.
   */
  nulInBodies?: 'refuse' | 'keep';
  /**
   * Longest time to receive a request, headers and body, after which it is answered 408 and its connection closed,
   * so a client trickling a body cannot hold a connection (default BODY_TIMEOUT_MS_DEFAULT).
   */
  bodyTimeoutMs?: number;
  /**
   * How long after SIGTERM the app serves on with /readyz answering 503, before it closes its listener (default
   * SHUTDOWN_DELAY_MS_DEFAULT): the time a load balancer needs to take it out of rotation.
   */
  shutdownDelayMs?: number;
  /** Errors raised before routing on paths of a second API, in that API's shape (see {@link EdgeErrorWriter}). */
  edgeErrors?: EdgeErrorWriter;
}

/** Default of {@link HttpAppOptions.bodyTimeoutMs}: a 20 MB result still arrives at 6 Mbit/s. */
export const BODY_TIMEOUT_MS_DEFAULT = 30_000;

/** Node's default time to receive a request's headers. */
const HEADERS_TIMEOUT_MS = 60_000;

/**
 * Node checks for requests past their timeout on an interval (30 s by default), which would let a request overrun a
 * short timeout by that much; a tenth of the timeout keeps the overrun small.
 */
function timeoutCheckIntervalMs(timeoutMs: number): number {
  return Math.max(10, Math.min(1_000, Math.floor(timeoutMs / 10)));
}

function recordRequestMetrics(app: NestFastifyApplication, metrics: MetricsRegistry): void {
  const duration = metrics.histogram('http_request_duration_seconds', 'HTTP request duration', [
    'method',
    'route',
    'status',
  ]);
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      duration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
      done();
    });
}

/**
 * Fastify's JSON parser, but an empty body is no body: RunPod's clients send `Content-Type: application/json` on
 * requests without one (runpodctl's pod start, stop, reset, restart and every DELETE; runpod-python's job cancel).
 * The route's own validation then decides whether it needed a body. A body nested deeper than MAX_JSON_DEPTH is
 * refused before it is parsed.
 */
function jsonOrNothing(fastify: FastifyInstance): FastifyBodyParser<Buffer> {
  const json = fastify.getDefaultJsonParser('error', 'error');
  return (request, body, done) => {
    if (body.length === 0) return done(null, undefined);
    // Decoded once, for the depth check and the parser alike.
    const text = body.toString('utf8');
    const tooDeep = jsonDepthError(text);
    return tooDeep ? done(tooDeep) : json(request, text, done);
  };
}

/** Longest a shutdown waits for answers in flight before it closes their connections anyway. */
const CLOSE_GRACE_MS = 10_000;

/**
 * Closes every client connection once the server is closing: idle ones at once, busy ones right after their answer
 * goes out, the rest after CLOSE_GRACE_MS. Node's own close() leaves a kept-alive connection open until its client
 * hangs up, so a worker SDK or load balancer holding connections would stall a shutdown until the grace period
 * ended in SIGKILL. Connections are tracked here (not through Node's idle list), with their requests in flight.
 */
function closeConnectionsOnShutdown(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  const busy = new Map<Socket, number>();
  let closing = false;
  fastify.server.on('connection', (socket: Socket) => {
    busy.set(socket, 0);
    socket.once('close', () => busy.delete(socket));
  });
  fastify.addHook('onRequest', (request, _reply, done) => {
    // Only connections the server accepted are tracked (inject() requests have none).
    const requests = busy.get(request.raw.socket);
    if (requests !== undefined) busy.set(request.raw.socket, requests + 1);
    done();
  });
  fastify.addHook('onResponse', (request, _reply, done) => {
    const { socket } = request.raw;
    const requests = busy.get(socket);
    if (requests !== undefined) {
      busy.set(socket, requests - 1);
      if (closing && requests <= 1) socket.destroy();
    }
    done();
  });
  fastify.addHook('preClose', (done) => {
    closing = true;
    for (const [socket, requests] of busy) if (requests <= 0) socket.destroy();
    const deadline = setTimeout(() => {
      for (const socket of busy.keys()) socket.destroy();
    }, CLOSE_GRACE_MS);
    deadline.unref();
    fastify.server.once('close', () => clearTimeout(deadline));
    done();
  });
}

/**
 * Fastify as every service runs it: pino logs under the request id, the body limit, the time a request has to arrive
 * and the answers to errors raised before routing.
 */
function fastifyAdapter(options: HttpAppOptions, edgeErrors: EdgeErrors): FastifyAdapter {
  const bodyTimeoutMs = options.bodyTimeoutMs ?? BODY_TIMEOUT_MS_DEFAULT;
  return new FastifyAdapter({
    loggerInstance: options.logger,
    genReqId: requestIdFor,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    bodyLimit: options.bodyLimitBytes,
    childLoggerFactory: lazyRequestLogger,
    requestTimeout: bodyTimeoutMs,
    http: {
      connectionsCheckingInterval: timeoutCheckIntervalMs(bodyTimeoutMs),
      // Node swaps the two timeouts when the headers' one is the longer, which would stretch the request's to 60 s.
      headersTimeout: Math.min(HEADERS_TIMEOUT_MS, bodyTimeoutMs),
    },
    frameworkErrors: edgeErrors.frameworkErrors,
    clientErrorHandler: edgeErrors.clientErrorHandler,
  });
}

/**
 * Builds a Nest app on Fastify with Runplane's conventions: pino JSON logs, `x-request-id` accepted and echoed,
 * one error shape per API (Nest routes Fastify's own errors, e.g. malformed JSON, through the same filter, and
 * EdgeErrors answers those raised before routing),
 * request metrics, a graceful shutdown on SIGTERM (see shutdownOnSignals) that never waits on a kept-alive client.
 */
export async function createHttpApp(options: HttpAppOptions): Promise<NestFastifyApplication> {
  const { logger, errorStyle } = options;
  const edgeErrors = new EdgeErrors(errorStyle, logger, options.edgeErrors);
  const adapter = fastifyAdapter(options, edgeErrors);
  const app = await NestFactory.create<NestFastifyApplication>(options.module, adapter, {
    logger: new PinoNestLogger(logger),
  });
  const fastify = app.getHttpAdapter().getInstance();
  app.useBodyParser('application/json', { bodyLimit: options.bodyLimitBytes }, jsonOrNothing(fastify));
  // Callback-style hooks: every request runs them, and an async hook costs a promise each.
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  edgeErrors.track(fastify);
  app.useGlobalFilters(new ApiExceptionFilter(errorStyle, logger));
  const checkBodies = options.nulInBodies !== 'keep';
  fastify.addHook('preHandler', (request, _reply, done) => {
    rejectNulCharacters(request, checkBodies);
    done();
  });
  if (options.metrics) recordRequestMetrics(app, options.metrics);
  closeConnectionsOnShutdown(app);
  trackDraining(app);
  shutdownOnSignals(app, options.shutdownDelayMs ?? SHUTDOWN_DELAY_MS_DEFAULT, logger);
  return app;
}
