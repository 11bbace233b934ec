// The processes of the gateway read-path suite: the gateway itself (apps/gateway/src/main.ts, as deployed) and the
// bare Fastify + pg baseline, each on its own port so the load generator does not share their event loops (started
// with startServer, bench-process.ts).
import { randomBytes } from 'node:crypto';

/**
 * The environment a benchmarked gateway runs with: its database and Redis prefix, a fresh encryption key, quiet logs,
 * and the v2 quotas off (they would refuse a benchmark's load; their cost is one Redis call per request either way).
 */
export function gatewayBenchEnv(databaseUrl: string, redisPrefix: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    REDIS_PREFIX: redisPrefix,
    RUNPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'error',
    V2_RATE_LIMIT_PER_MINUTE: '0',
    V2_RATE_LIMIT_PER_HOUR: '0',
    V2_RATE_LIMIT_PER_DAY: '0',
  };
}
