import type { DynamicModule, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger, MetricsRegistry } from '@runplane/observability';
import { LogController } from 'fastify';
import { ApiExceptionFilter } from '../errors/api-exception.filter';
import type { ErrorStyle } from '../errors/error-body';
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

/** Longest a shutdown waits for answers in flight before it closes their connections anyway. */
const CLOSE_GRACE_MS = 10_000;
const IDLE_SWEEP_MS = 50;

/**
 * Closes keep-alive connections as they go idle once the server is closing. Node closes the connections idle when
 * close() starts, but one still answering then (a long-poll the shutdown just ended) would stay open for its client's
 * next request and hold the close until the client hangs up: a shutdown must not wait on a client. Answers in flight
 * finish; after CLOSE_GRACE_MS the rest are cut.
 */
function closeConnectionsWhenIdle(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('preClose', (done) => {
    const { server } = fastify;
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const deadline = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
    sweep.unref();
    deadline.unref();
    server.once('close', () => {
      clearInterval(sweep);
      clearTimeout(deadline);
    });
    done();
  });
}

/**
 * Builds a Nest app on Fastify with Runplane's conventions: pino JSON logs, `x-request-id` accepted and echoed,
 * one error shape per API (Nest routes Fastify's own errors, e.g. malformed JSON, through the same filter),
 * request metrics, shutdown hooks that never wait on a kept-alive client.
 */
export async function createHttpApp(options: HttpAppOptions): Promise<NestFastifyApplication> {
  const { logger, errorStyle } = options;
  const adapter = new FastifyAdapter({
    loggerInstance: logger,
    genReqId: requestIdFor,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    bodyLimit: options.bodyLimitBytes,
    childLoggerFactory: lazyRequestLogger,
  });
  const app = await NestFactory.create<NestFastifyApplication>(options.module, adapter, {
    logger: new PinoNestLogger(logger),
  });
  const fastify = app.getHttpAdapter().getInstance();
  // Callback-style hooks: every request runs them, and an async hook costs a promise each.
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  app.useGlobalFilters(new ApiExceptionFilter(errorStyle, logger));
  fastify.addHook('preHandler', (request, _reply, done) => {
    rejectNulCharacters(request);
    done();
  });
  if (options.metrics) recordRequestMetrics(app, options.metrics);
  closeConnectionsWhenIdle(app);
  app.enableShutdownHooks();
  return app;
}
