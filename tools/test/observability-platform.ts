import { randomBytes } from 'node:crypto';
import type { DynamicModule } from '@nestjs/common';
import { DEFAULT_STORAGE_PRICES } from '@runplane/catalog';
import { buildService, type ErrorStyle, type NestFastifyApplication, type ServiceConfig } from '@runplane/http';
import { BillingAggregatorModule } from '../../apps/billing-aggregator/src/billing-aggregator.module';
import { billingAggregatorEnvSchema } from '../../apps/billing-aggregator/src/config';
import { gatewayEnvSchema } from '../../apps/gateway/src/config';
import { GatewayModule } from '../../apps/gateway/src/gateway.module';
import { jobRouterEnvSchema } from '../../apps/job-router/src/config';
import { createJobRouterEngine } from '../../apps/job-router/src/engine';
import { JobRouterModule } from '../../apps/job-router/src/job-router.module';
import { schedulerEnvSchema } from '../../apps/scheduler/src/config';
import { SchedulerModule } from '../../apps/scheduler/src/scheduler.module';
import { webhookDispatcherEnvSchema } from '../../apps/webhook-dispatcher/src/config';
import { WebhookDispatcherModule } from '../../apps/webhook-dispatcher/src/webhook-dispatcher.module';

type Env = Record<string, string>;

/** The five services, each as its main.ts assembles it (the job-router with its job API and engine). */
const SERVICES: Record<
  string,
  { errorStyle: ErrorStyle; build(env: Env): { config: ServiceConfig; module: (i: DynamicModule) => DynamicModule } }
> = {
  gateway: {
    errorStyle: 'v1',
    build: (env) => {
      const config = gatewayEnvSchema.parse(env);
      return { config, module: (infra) => GatewayModule.forRoot(config, infra) };
    },
  },
  'job-router': {
    errorStyle: 'job',
    build: (env) => {
      const config = jobRouterEnvSchema.parse(env);
      return { config, module: (infra) => JobRouterModule.forRoot(infra, { config, engine: createJobRouterEngine }) };
    },
  },
  scheduler: {
    errorStyle: 'v1',
    build: (env) => {
      const config = schedulerEnvSchema.parse(env);
      return { config, module: (infra) => SchedulerModule.forRoot(infra, config) };
    },
  },
  'webhook-dispatcher': {
    errorStyle: 'v1',
    build: (env) => {
      const config = webhookDispatcherEnvSchema.parse(env);
      return { config, module: (infra) => WebhookDispatcherModule.forRoot(config, infra) };
    },
  },
  'billing-aggregator': {
    errorStyle: 'v1',
    build: (env) => {
      const config = billingAggregatorEnvSchema.parse(env);
      const settings = { redisPrefix: config.REDIS_PREFIX, concurrency: 1, rollUpIntervalMs: 0 };
      const options = { redisUrl: config.REDIS_URL, prices: DEFAULT_STORAGE_PRICES, settings };
      return { config, module: (infra) => BillingAggregatorModule.forRoot(infra, options) };
    },
  },
};

/** The names of the services {@link startService} builds. */
export const SERVICE_NAMES = Object.keys(SERVICES);

/** Builds and initialises one service in this process (as tools/test/services-health does), without listening. */
export async function startService(name: string, env: Env): Promise<NestFastifyApplication> {
  const service = SERVICES[name];
  if (!service) throw new Error(`unknown service ${name}`);
  const key = { RUNPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex') };
  const { config, module } = service.build({ LOG_LEVEL: 'silent', ...key, ...env });
  const app = await buildService({ serviceName: name, errorStyle: service.errorStyle, config, module });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}

/** The value of the sample of `name` whose labels include `labels`, or undefined. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = (match[2] ?? '').split(',');
    if (wanted.every((pair) => present.includes(pair))) return Number(match[3]);
  }
  return undefined;
}

/** Every metric name an exposition has samples of (histograms' _bucket, _sum and _count included). */
export function exposedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line);
    if (match) names.add(match[1] as string);
  }
  return names;
}
