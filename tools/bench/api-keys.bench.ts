import { randomBytes } from 'node:crypto';
import { createAccountsServices } from '@runplane/accounts';
import { createPrismaClient } from '@runplane/db';
import { buildService } from '@runplane/http';
import { gatewayEnvSchema } from '../../apps/gateway/src/config';
import { GatewayModule } from '../../apps/gateway/src/gateway.module';
import { createBenchDatabase } from './bench-database';
import { load, type LoadResult, printRatios } from './http-load';

/** Bench settings, read from the environment by the runner. */
export interface BenchOptions {
  adminDatabaseUrl: string;
  durationSeconds: number;
  connections: number;
}

/**
 * Cost of authentication and tenancy on the v1 API: an authenticated `GET /v1/apikeys` (key lookup + account
 * scoped query) against the unauthenticated `/healthz` baseline, both served by the same gateway in this run.
 */
export async function benchApiKeys(options: BenchOptions): Promise<LoadResult[]> {
  const database = await createBenchDatabase(options.adminDatabaseUrl, `runplane_bench_${process.pid}`);
  const databaseUrl = database.url;
  const config = gatewayEnvSchema.parse({
    DATABASE_URL: databaseUrl,
    REDIS_PREFIX: `runplane-bench-${process.pid}`,
    RUNPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'silent',
  });
  const app = await buildService({
    serviceName: 'gateway',
    errorStyle: 'v1',
    config,
    module: (infrastructure) => GatewayModule.forRoot(config, infrastructure),
  });
  const db = createPrismaClient(databaseUrl);
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = await app.getUrl();
    const { accounts, apiKeys } = createAccountsServices(db);
    const account = await accounts.create({ name: 'bench' });
    const { secret } = await apiKeys.create(account.id, { name: 'bench', scope: 'ALL' });
    const run = { durationSeconds: options.durationSeconds, connections: options.connections };
    return [
      await load('GET /healthz (baseline)', `${base}/healthz`, run),
      await load('GET /v1/apikeys (Bearer key)', `${base}/v1/apikeys`, {
        ...run,
        headers: { authorization: `Bearer ${secret}` },
      }),
      await load('GET /v1/apikeys (wrong key, 401)', `${base}/v1/apikeys`, {
        ...run,
        headers: { authorization: `Bearer rpl_${'x'.repeat(43)}` },
      }),
    ];
  } finally {
    await app.close();
    await db.$disconnect();
    await database.drop();
  }
}

export { printRatios };
