import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Logger, type Provider } from '@nestjs/common';
import type { ComputeDriver } from '../compute-driver';
import { LogStreamServer } from './log-stream-server';

/** Injection token of the scheduler's {@link LogStreamServer}. */
export const LOG_STREAM_SERVER = Symbol('LOG_STREAM_SERVER');

const logger = new Logger('LogStreams');

/** The log stream server over the runtime's driver (`runtimeToken` provides an object with a `driver`). */
export function logStreamProvider(config: { REDIS_URL: string; REDIS_PREFIX: string }, runtimeToken: symbol): Provider {
  return {
    provide: LOG_STREAM_SERVER,
    inject: [runtimeToken],
    useFactory: (runtime: { driver: ComputeDriver }) =>
      new LogStreamServer({
        redisUrl: config.REDIS_URL,
        redisPrefix: config.REDIS_PREFIX,
        driver: runtime.driver,
        replicaId: `${hostname()}-${randomBytes(4).toString('hex')}`,
        log: (message, error) => logger.error(`${message}: ${error instanceof Error ? error.message : String(error)}`),
      }),
  };
}
