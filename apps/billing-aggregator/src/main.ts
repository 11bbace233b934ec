// telemetry must stay the first import: it starts OpenTelemetry before the app's modules load.
import { config, telemetry } from './telemetry';
import { buildCatalog, loadCatalogOverrides } from '@runplane/catalog';
import { runService } from '@runplane/http';
import { BillingAggregatorModule } from './billing-aggregator.module';

async function main(): Promise<void> {
  const overrides =
    config.RUNPLANE_CATALOG_FILE === undefined ? undefined : await loadCatalogOverrides(config.RUNPLANE_CATALOG_FILE);
  await runService({
    serviceName: 'billing-aggregator',
    errorStyle: 'v1',
    config,
    telemetry,
    module: (infrastructure) =>
      BillingAggregatorModule.forRoot(infrastructure, {
        redisUrl: config.REDIS_URL,
        prices: buildCatalog(overrides).storagePrices,
        settings: {
          redisPrefix: config.REDIS_PREFIX,
          concurrency: config.USAGE_CONCURRENCY,
          rollUpIntervalMs: config.BILLING_ROLLUP_INTERVAL_MS,
        },
      }),
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
