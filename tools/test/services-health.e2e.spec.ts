import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamicModule } from '@nestjs/common';
import { DEFAULT_STORAGE_PRICES } from '@runplane/catalog';
import { ensureDatabaseExists } from '@runplane/db';
import { buildService, type ErrorStyle, type NestFastifyApplication, type ServiceConfig } from '@runplane/http';
import { createTestDatabase, getFreePort, pollUntil, testRedisPrefix, type TestDatabase } from '@runplane/testing';
import { BillingAggregatorModule } from '../../apps/billing-aggregator/src/billing-aggregator.module';
import { billingAggregatorEnvSchema } from '../../apps/billing-aggregator/src/config';
import { gatewayEnvSchema } from '../../apps/gateway/src/config';
import { GatewayModule } from '../../apps/gateway/src/gateway.module';
import { jobRouterEnvSchema } from '../../apps/job-router/src/config';
import { JobRouterModule } from '../../apps/job-router/src/job-router.module';
import { schedulerEnvSchema } from '../../apps/scheduler/src/config';
import { SchedulerModule } from '../../apps/scheduler/src/scheduler.module';
import { webhookDispatcherEnvSchema } from '../../apps/webhook-dispatcher/src/config';
import { WebhookDispatcherModule } from '../../apps/webhook-dispatcher/src/webhook-dispatcher.module';
import { resolvePostgres } from '../platform/postgres';
import { resolveRedis } from '../platform/redis';
import type { ResolvedService } from '../platform/services';

type Env = Record<string, string>;

interface ServiceUnderTest {
  name: string;
  errorStyle: ErrorStyle;
  build(env: Env): { config: ServiceConfig; module: (infrastructure: DynamicModule) => DynamicModule };
}

const withKey = (env: Env): Env => ({ ...env, RUNPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex') });

const SERVICES: ServiceUnderTest[] = [
  {
    name: 'gateway',
    errorStyle: 'v1',
    build: (env) => {
      const config = gatewayEnvSchema.parse(withKey(env));
      return { config, module: (infra) => GatewayModule.forRoot(config, infra) };
    },
  },
  {
    name: 'job-router',
    errorStyle: 'job',
    build: (env) => ({ config: jobRouterEnvSchema.parse(env), module: (infra) => JobRouterModule.forRoot(infra) }),
  },
  {
    name: 'scheduler',
    errorStyle: 'v1',
    build: (env) => {
      const config = schedulerEnvSchema.parse(env);
      return { config, module: (infra) => SchedulerModule.forRoot(infra, config) };
    },
  },
  {
    name: 'webhook-dispatcher',
    errorStyle: 'v1',
    build: (env) => {
      const config = webhookDispatcherEnvSchema.parse(withKey(env));
      return { config, module: (infra) => WebhookDispatcherModule.forRoot(config, infra) };
    },
  },
  {
    name: 'billing-aggregator',
    errorStyle: 'v1',
    build: (env) => {
      const config = billingAggregatorEnvSchema.parse(env);
      const settings = { redisPrefix: config.REDIS_PREFIX, concurrency: 1, rollUpIntervalMs: 0 };
      const options = { redisUrl: config.REDIS_URL, prices: DEFAULT_STORAGE_PRICES, settings };
      return { config, module: (infra) => BillingAggregatorModule.forRoot(infra, options) };
    },
  },
];

async function startService(service: ServiceUnderTest, env: Env): Promise<NestFastifyApplication> {
  const { config, module } = service.build({ LOG_LEVEL: 'silent', ...env });
  const app = await buildService({ serviceName: service.name, errorStyle: service.errorStyle, config, module });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}

const get = (app: NestFastifyApplication, url: string) =>
  app.getHttpAdapter().getInstance().inject({ method: 'GET', url });

describe.each(SERVICES)('$name health routes', (service) => {
  let database: TestDatabase;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    database = await createTestDatabase(`health-${service.name}`);
    app = await startService(service, { DATABASE_URL: database.url, REDIS_PREFIX: testRedisPrefix(service.name) });
  });
  afterAll(async () => {
    await app.close();
    await database.drop();
  });

  it('answers /healthz and /readyz with its Postgres and Redis checks', async () => {
    const health = await get(app, '/healthz');
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    const ready = await get(app, '/readyz');
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ok', checks: { postgres: { status: 'ok' }, redis: { status: 'ok' } } });
  });

  it('serves Prometheus metrics labelled with the service', async () => {
    await get(app, '/healthz');
    const metrics = await get(app, '/metrics');
    expect(metrics.statusCode).toBe(200);
    expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
    expect(metrics.body).toContain(`process_cpu_user_seconds_total{service="${service.name}"}`);
    expect(metrics.body).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/healthz"[^}]*\} [1-9]/);
  });
});

describe('/readyz when a backing store stops', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'runplane-readyz-'));
  // Run as root, embedded Postgres runs as its own system user, which must be able to enter the folder.
  chmodSync(stateDir, 0o755);
  let postgres: ResolvedService | undefined;
  let redis: ResolvedService | undefined;
  const apps: NestFastifyApplication[] = [];

  beforeAll(async () => {
    const closedPort = await getFreePort();
    postgres = await resolvePostgres({
      databaseUrl: undefined,
      localHost: '127.0.0.1',
      localPort: closedPort,
      databaseName: 'readyz',
      embeddedDataDir: join(stateDir, 'postgres'),
      ensureDatabase: ensureDatabaseExists,
      log: () => undefined,
    });
    redis = await resolveRedis({
      redisUrl: undefined,
      localHost: '127.0.0.1',
      localPort: closedPort,
      searchPath: process.env.PATH ?? '',
      log: () => undefined,
    });
    for (const service of SERVICES) {
      apps.push(await startService(service, { DATABASE_URL: postgres.url, REDIS_URL: redis.url, LOG_LEVEL: 'fatal' }));
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await postgres?.stop();
    await redis?.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('is ready while both answer, then 503 naming Postgres once it is stopped, then Redis too', async () => {
    if (!postgres || !redis) throw new Error('backing stores did not start');
    for (const app of apps) expect((await get(app, '/readyz')).statusCode).toBe(200);

    await postgres.stop();
    for (const app of apps) {
      const res = await pollUntil(
        async () => {
          const r = await get(app, '/readyz');
          return r.statusCode === 503 ? r : undefined;
        },
        { timeoutMs: 15_000, intervalMs: 100 },
      );
      expect(res.json()).toMatchObject({
        status: 'unavailable',
        checks: { postgres: { status: 'error' }, redis: { status: 'ok' } },
      });
      expect((await get(app, '/healthz')).statusCode).toBe(200);
    }

    await redis.stop();
    for (const app of apps) {
      const res = await pollUntil(
        async () => {
          const r = await get(app, '/readyz');
          return (r.json() as { checks: { redis: { status: string } } }).checks.redis.status === 'error'
            ? r
            : undefined;
        },
        { timeoutMs: 15_000, intervalMs: 100 },
      );
      expect(res.statusCode).toBe(503);
    }
  }, 120_000);
});
