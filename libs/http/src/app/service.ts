import type { DynamicModule } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { databaseEnv, envInt, httpEnv, logEnv, otelEnv, redisEnv, z } from '@runplane/config';
import { type DatabaseClient, releaseQueryCompilerSource } from '@runplane/db';
import { createLogger, createMetricsRegistry, type Logger } from '@runplane/observability';
import type { ErrorStyle } from '../errors/error-body';
import { BODY_TIMEOUT_MS_DEFAULT, createHttpApp, type HttpAppOptions } from './create-http-app';
import { SHUTDOWN_DELAY_MS_DEFAULT } from './graceful-shutdown';
import { DB_CLIENT, InfrastructureModule } from './infrastructure.module';
import { SCHEMA_WAIT_INTERVAL_MS_DEFAULT, SCHEMA_WAIT_TIMEOUT_MS_DEFAULT, waitForSchema } from './schema-wait';

/** Longest time to receive a request (headers and body); a slower one is answered 408 and its connection closed. */
const bodyTimeoutEnv = {
  BODY_TIMEOUT_MS: envInt({ min: 100, max: 3_600_000, default: BODY_TIMEOUT_MS_DEFAULT }),
};

/** How long a service serves on after SIGTERM with /readyz answering 503, so a load balancer stops sending first. */
const shutdownEnv = {
  SHUTDOWN_DELAY_MS: envInt({ min: 0, max: 120_000, default: SHUTDOWN_DELAY_MS_DEFAULT }),
};

/** How long a starting service waits for the migrate tool to apply this build's migrations, and how often it looks. */
const schemaWaitEnv = {
  SCHEMA_WAIT_TIMEOUT_MS: envInt({ min: 0, max: 86_400_000, default: SCHEMA_WAIT_TIMEOUT_MS_DEFAULT }),
  SCHEMA_WAIT_INTERVAL_MS: envInt({ min: 10, max: 60_000, default: SCHEMA_WAIT_INTERVAL_MS_DEFAULT }),
};

/**
 * Bound of per-endpoint metric labels: the endpoints (at most METRICS_ENDPOINT_LABELS) active within
 * METRICS_ENDPOINT_IDLE_MS keep a label of their own, the rest are counted under `endpoint="other"`.
 */
const metricsEnv = {
  METRICS_ENDPOINT_LABELS: envInt({ min: 1, max: 10_000, default: 200 }),
  METRICS_ENDPOINT_IDLE_MS: envInt({ min: 1_000, max: 86_400_000, default: 3_600_000 }),
};

/** Environment every Runplane service reads: its HTTP listener, Postgres, Redis, logging and tracing. */
export function serviceEnvSchema(defaultPort: number) {
  return z.object({
    ...httpEnv(defaultPort),
    ...bodyTimeoutEnv,
    ...shutdownEnv,
    ...schemaWaitEnv,
    ...databaseEnv,
    ...redisEnv,
    ...logEnv,
    ...otelEnv,
    ...metricsEnv,
  });
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
  /** See {@link HttpAppOptions.edgeErrors}. */
  edgeErrors?: HttpAppOptions['edgeErrors'];
}

/** Builds (but does not start listening) a service: used by main() and by tests. */
export async function buildService(options: ServiceOptions): Promise<NestFastifyApplication> {
  const { config, serviceName } = options;
  const logger = serviceLogger(options);
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
    edgeErrors: options.edgeErrors,
  });
}

/**
 * Waits until the database has every migration this build ships (see {@link waitForSchema}); after
 * SCHEMA_WAIT_TIMEOUT_MS logs which migration is missing and exits 1, so the orchestrator restarts or reports it.
 */
export async function waitForSchemaOrExit(config: ServiceConfig, logger: Logger): Promise<void> {
  try {
    await waitForSchema({
      databaseUrl: config.DATABASE_URL,
      host: config.HOST,
      port: config.PORT,
      timeoutMs: config.SCHEMA_WAIT_TIMEOUT_MS,
      intervalMs: config.SCHEMA_WAIT_INTERVAL_MS,
      logger,
    });
  } catch (error) {
    logger.fatal(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}

/** Logger of a service, as {@link buildService} would create it. */
export function serviceLogger(options: Pick<ServiceOptions, 'serviceName' | 'config' | 'logger'>): Logger {
  return options.logger ?? createLogger({ serviceName: options.serviceName, level: options.config.LOG_LEVEL });
}

/** Builds and starts a service once the schema is ready; telemetry is shut down after the app closes (SIGTERM/SIGINT included). */
export async function runService(
  options: ServiceOptions & { telemetry: { shutdown(): Promise<void> } },
): Promise<NestFastifyApplication> {
  const logger = serviceLogger(options);
  await waitForSchemaOrExit(options.config, logger);
  const app = await buildService({ ...options, logger });
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onClose', async () => {
    await options.telemetry.shutdown();
  });
  await app.listen({ port: options.config.PORT, host: options.config.HOST });
  await startQueryEngine(app, logger);
  return app;
}

/**
 * Starts Prisma's query engine now rather than at the first query (a no-op if one ran already), then lets its
 * 2 MB base64 compiler source go (see releaseQueryCompilerSource). A database that does not answer just now is no
 * reason to stop: the readiness check reports it and the first query starts the engine.
 */
export async function startQueryEngine(app: NestFastifyApplication, logger: Logger): Promise<void> {
  try {
    await app.get<DatabaseClient>(DB_CLIENT).$connect();
    releaseQueryCompilerSource();
  } catch (error) {
    logger.warn({ err: error }, 'query engine not started yet');
  }
}
