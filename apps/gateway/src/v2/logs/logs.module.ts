import { Module } from '@nestjs/common';
import type { DbClient } from '@runplane/db';
import { DB_CLIENT, REDIS_CLIENT } from '@runplane/http';
import type { Redis } from '@runplane/queue';
import { PodRepository } from '@runplane/workloads';
import { LogStreamClient } from './log-stream.client';
import { LogTargets } from './log-targets';
import { LOG_STREAM_CLIENT, LOG_TARGETS, LogsController } from './logs.controller';

/**
 * Pod and worker log streams (SSE). The scheduler, which owns the compute drivers, serves them over the deployment's
 * Redis (see LogStreamClient); the gateway checks ownership and relays.
 */
@Module({
  controllers: [LogsController],
  providers: [
    { provide: LOG_TARGETS, inject: [DB_CLIENT], useFactory: (db: DbClient) => new LogTargets(new PodRepository(db)) },
    {
      provide: LOG_STREAM_CLIENT,
      inject: [REDIS_CLIENT],
      useFactory: (redis: Redis) =>
        new LogStreamClient({ connect: () => redis.duplicate(), redisPrefix: redis.options.keyPrefix ?? '' }),
    },
  ],
})
export class V2LogsModule {}
