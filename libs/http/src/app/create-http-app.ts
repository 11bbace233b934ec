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

/**
 * Builds a Nest app on Fastify with Runplane's conventions: pino JSON logs, `x-request-id` accepted and echoed,
 * one error shape per API (Nest routes Fastify's own errors, e.g. malformed JSON, through the same filter),
 * request metrics, shutdown hooks.
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
  app.enableShutdownHooks();
  return app;
}
