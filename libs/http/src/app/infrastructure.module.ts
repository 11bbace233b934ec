import { type DynamicModule, Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { checkDatabase, createPrismaClient, type DbClient } from '@runplane/db';
import type { MetricsRegistry } from '@runplane/observability';
import { checkRedis, closeRedis, createRedis, type Redis, redisConnectionErrors } from '@runplane/queue';
import { METRICS_REGISTRY, READINESS_CHECKS, type ReadinessCheck } from '../health/health.controller';

/** Injection token for the app's Prisma client. */
export const DB_CLIENT = Symbol('DB_CLIENT');
/** Injection token for the app's ioredis client. */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

/** Connection settings of the stores every Runplane service uses. */
export interface InfrastructureOptions {
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  metrics: MetricsRegistry;
}

type PrismaLike = DbClient & { $disconnect(): Promise<void> };

@Injectable()
class ConnectionsCloser implements OnApplicationShutdown {
  constructor(
    @Inject(DB_CLIENT) private readonly db: PrismaLike,
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([this.db.$disconnect(), closeRedis(this.redis)]);
  }
}

/**
 * `runplane_postgres_errors_total` (the app's pool: failed connection attempts, errors of open connections) and
 * `runplane_redis_errors_total` (connection errors of every Redis client of the process, see redisConnectionErrors).
 */
function storeErrorMetrics({ metrics }: InfrastructureOptions): { onConnectionError: () => void } {
  const postgres = metrics.counter('runplane_postgres_errors_total', 'PostgreSQL connection and pool errors');
  metrics.collectedCounter('runplane_redis_errors_total', 'Redis connection errors', redisConnectionErrors);
  return { onConnectionError: () => postgres.inc() };
}

/**
 * Provides the Postgres and Redis clients, readiness checks over both and the metrics registry to the whole
 * app, and closes the connections on shutdown.
 */
@Global()
@Module({})
export class InfrastructureModule {
  static forRoot(options: InfrastructureOptions): DynamicModule {
    return {
      module: InfrastructureModule,
      providers: [
        { provide: DB_CLIENT, useFactory: () => createPrismaClient(options.databaseUrl, storeErrorMetrics(options)) },
        { provide: REDIS_CLIENT, useFactory: () => createRedis(options.redisUrl, { keyPrefix: options.redisPrefix }) },
        { provide: METRICS_REGISTRY, useValue: options.metrics },
        {
          provide: READINESS_CHECKS,
          inject: [DB_CLIENT, REDIS_CLIENT],
          useFactory: (db: DbClient, redis: Redis): ReadinessCheck[] => [
            { name: 'postgres', check: () => checkDatabase(db, 2000) },
            { name: 'redis', check: () => checkRedis(redis, 2000) },
          ],
        },
        ConnectionsCloser,
      ],
      exports: [DB_CLIENT, REDIS_CLIENT, METRICS_REGISTRY, READINESS_CHECKS],
    };
  }
}
