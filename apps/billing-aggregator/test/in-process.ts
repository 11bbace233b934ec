import { DEFAULT_STORAGE_PRICES } from '@runplane/catalog';
import { buildService, type NestFastifyApplication } from '@runplane/http';
import { type AggregatorOptions, BillingAggregatorModule } from '../src/billing-aggregator.module';
import { billingAggregatorEnvSchema } from '../src/config';

/** How a spec runs the billing aggregator: its env, how many usage events it applies at once, its clock. */
export interface InProcessAggregator {
  env: Record<string, string>;
  concurrency: number;
  clock?: AggregatorOptions['clock'];
}

/**
 * Builds and initialises the billing aggregator in this process with the default storage prices; it never rolls up
 * on its own (the spec asks). Answers the app, for the spec to close.
 */
export async function startAggregatorInProcess(options: InProcessAggregator): Promise<NestFastifyApplication> {
  const config = billingAggregatorEnvSchema.parse(options.env);
  const app = await buildService({
    serviceName: 'billing-aggregator',
    errorStyle: 'v1',
    config,
    module: (infrastructure) =>
      BillingAggregatorModule.forRoot(infrastructure, {
        redisUrl: config.REDIS_URL,
        prices: DEFAULT_STORAGE_PRICES,
        ...(options.clock ? { clock: options.clock } : {}),
        settings: { redisPrefix: config.REDIS_PREFIX, concurrency: options.concurrency, rollUpIntervalMs: 0 },
      }),
  });
  await app.init();
  return app;
}
