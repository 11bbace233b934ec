import { createAccountsServices } from '@runplane/accounts';
import type { ApiKeyScope } from '@runplane/contracts';
import { createPrismaClient } from '@runplane/db';
import {
  buildService,
  type InjectOptions,
  type LightMyRequestResponse,
  type NestFastifyApplication,
} from '@runplane/http';
import type { RedisJobEngine } from '@runplane/jobs';
import type { Redis } from '@runplane/queue';
import { createTestStores, FakeClock } from '@runplane/testing';
import { jobRouterEnvSchema, type JobRouterConfig } from '../src/config';
import { JobRouterModule } from '../src/job-router.module';
import { createJobRouterEngine } from '../src/engine';
import { createWorkerTokensService } from '../src/worker-tokens';
import { seedEndpoint } from './seed-endpoint';

/** A job-router built on its own test database and Redis prefix, driven through Fastify's inject. */
export interface JobRouterHarness {
  app: NestFastifyApplication;
  config: JobRouterConfig;
  databaseUrl: string;
  db: ReturnType<typeof createPrismaClient>;
  redis: Redis;
  clock: FakeClock;
  engine(): RedisJobEngine;
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** Creates an account and a key of the given scope; returns the account id and the key's secret. */
  accountWithKey(scope?: ApiKeyScope, allowedEndpointIds?: string[]): Promise<{ accountId: string; secret: string }>;
  /** Creates a template and an endpoint of the account; returns the endpoint id. */
  endpoint(accountId: string, executionTimeoutMs?: number): Promise<string>;
  /** Issues a worker token for a worker of an endpoint. */
  workerToken(endpointId: string, workerId: string): Promise<string>;
  close(): Promise<void>;
}

type Db = ReturnType<typeof createPrismaClient>;

/** The job-router app on `config`, its engine on `clock`, ready for inject. */
async function buildJobRouter(config: JobRouterConfig, clock: FakeClock) {
  let engine: RedisJobEngine | undefined;
  const app = await buildService({
    serviceName: 'job-router',
    errorStyle: 'job',
    nulInBodies: 'keep',
    config,
    module: (infrastructure) =>
      JobRouterModule.forRoot(infrastructure, {
        config,
        engine: (deps) => (engine = createJobRouterEngine({ ...deps, clock })),
      }),
  });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  const builtEngine = (): RedisJobEngine => {
    if (!engine) throw new Error('the job engine was not built');
    return engine;
  };
  return { app, engine: builtEngine };
}

/** Accounts, keys, endpoints and worker tokens written straight to the test database. */
function fixtures(db: Db, label: string): Pick<JobRouterHarness, 'accountWithKey' | 'endpoint' | 'workerToken'> {
  const { accounts, apiKeys } = createAccountsServices(db);
  const workerTokens = createWorkerTokensService(db);
  return {
    async accountWithKey(scope = 'ALL', allowedEndpointIds) {
      const account = await accounts.create({ name: `${label}-account` });
      const { secret } = await apiKeys.create(account.id, { name: `${scope} key`, scope, allowedEndpointIds });
      return { accountId: account.id, secret };
    },
    async endpoint(accountId, executionTimeoutMs) {
      return (await seedEndpoint(db, accountId, executionTimeoutMs)).id;
    },
    async workerToken(endpointId, workerId) {
      return (await workerTokens.issue(endpointId, workerId)).token;
    },
  };
}

/** Starts a job-router for one test file; `env` overrides configuration (small limits, short holds). */
export async function startJobRouter(label: string, env: Record<string, string> = {}): Promise<JobRouterHarness> {
  const stores = await createTestStores(label);
  const config = jobRouterEnvSchema.parse({
    DATABASE_URL: stores.database.url,
    REDIS_PREFIX: stores.prefix,
    LOG_LEVEL: 'silent',
    JOB_SWEEP_INTERVAL_MS: '0',
    JOB_TAKE_WAIT_MS: '200',
    JOB_STREAM_WAIT_MS: '200',
    ...env,
  });
  const clock = new FakeClock(Date.now());
  const { app, engine } = await buildJobRouter(config, clock);
  const fastify = app.getHttpAdapter().getInstance();
  const { db, redis } = stores;
  return {
    app,
    config,
    databaseUrl: stores.database.url,
    db,
    redis,
    clock,
    engine,
    inject: (options) => fastify.inject(options),
    ...fixtures(db, label),
    async close() {
      // An aborted client fetch can leave a connection with no request on it, which Node counts as busy until its
      // headers timeout (60 s): drop every open connection so closing the server does not wait for it.
      const server = app.getHttpServer();
      if (server.listening) server.closeAllConnections();
      await app.close();
      await stores.close();
    },
  };
}

/** Authorization header in Bearer form. */
export const bearer = (secret: string): Record<string, string> => ({ authorization: `Bearer ${secret}` });
/** Authorization header in RunPod's raw form. */
export const raw = (secret: string): Record<string, string> => ({ authorization: secret });
