import type { DynamicModule } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { databaseEnv, envInt, httpEnv, logEnv, otelEnv, redisEnv, z } from '@runplane/config';
import { createLogger, createMetricsRegistry, type Logger } from '@runplane/observability';
import type { ErrorStyle } from '../errors/error-body';
import { BODY_TIMEOUT_MS_DEFAULT, createHttpApp, type HttpAppOptions } from './create-http-app';
import { SHUTDOWN_DELAY_MS_DEFAULT } from './graceful-shutdown';
import { InfrastructureModule } from './infrastructure.module';

/** Longest time to receive a request (headers and body); a slower one is answered 408 and its connection closed. */
const bodyTimeoutEnv = {
  BODY_TIMEOUT_MS: envInt({ min: 100, max: 3_600_000, default: BODY_TIMEOUT_MS_DEFAULT }),
};

/** How long a service serves on after SIGTERM with /readyz answering 503, so a load balancer stops sending first. */
const shutdownEnv = {
  SHUTDOWN_DELAY_MS: envInt({ min: 0, max: 120_000, default: SHUTDOWN_DELAY_MS_DEFAULT }),
};

/** Environment every Runplane service reads: its HTTP listener, Postgres, Redis, logging and tracing. */
export function serviceEnvSchema(defaultPort: number) {
  return z.object({ ...httpEnv(defaultPort), ...bodyTimeoutEnv, ...shutdownEnv, ...databaseEnv, ...redisEnv, ...logEnv, ...otelEnv });
}
/** Parsed service environment. */
export type ServiceConfig = z.infer<ReturnType<typeof serviceEnvSchema>>;

/** How one Runplane service is assembled. */
export interface ServiceOptions {
  serviceName: string;
  errorStyle: ErrorStyle;
  config: ServiceConfig;
  /** Builds the app's root module around the shared infrastructure module. */
  module: (infrastructure: DynamicModule) => DynamicModule;
  logger?: Logger;
  /** See {@link HttpAppOptions.nulInBodies}. */
  nulInBodies?: HttpAppOptions['nulInBodies'];
}

/** Builds (but does not start listening) a service: used by main() and by tests. */
export async function buildService(options: ServiceOptions): Promise<NestFastifyApplication> {
  const { config, serviceName } = options;
  const logger = options.logger ?? createLogger({ serviceName, level: config.LOG_LEVEL });
  const metrics = createMetricsRegistry(serviceName);
  const infrastructure = InfrastructureModule.forRoot({
    databaseUrl: config.DATABASE_URL,
    redisUrl: config.REDIS_URL,
    redisPrefix: config.REDIS_PREFIX,
    metrics,
  });
  return createHttpApp({
    module: options.module(infrastructure),
    logger,
    errorStyle: options.errorStyle,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    bodyTimeoutMs: config.BODY_TIMEOUT_MS,
    shutdownDelayMs: config.SHUTDOWN_DELAY_MS,
    metrics,
    nulInBodies: options.nulInBodies,
  });
}

/** Builds and starts a service; telemetry is shut down after the app closes (SIGTERM/SIGINT included). */
export async function runService(
  options: ServiceOptions & { telemetry: { shutdown(): Promise<void> } },
): Promise<NestFastifyApplication> {
  const app = await buildService(options);
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onClose', async () => {
    await options.telemetry.shutdown();
  });
  await app.listen({ port: options.config.PORT, host: options.config.HOST });
  return app;
}
