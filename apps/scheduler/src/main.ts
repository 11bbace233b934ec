// telemetry must stay the first import: it starts OpenTelemetry before the app's modules load.
import { config, telemetry } from './telemetry';
import { buildService, serviceLogger, startQueryEngine, waitForSchemaOrExit } from '@runplane/http';
import { SchedulerModule } from './scheduler.module';
import { startPlacementListener } from './start-scheduler';

async function main(): Promise<void> {
  const logger = serviceLogger({ serviceName: 'scheduler', config });
  await waitForSchemaOrExit(config, logger);
  const app = await buildService({
    serviceName: 'scheduler',
    logger,
    errorStyle: 'v1',
    config,
    module: (infrastructure) => SchedulerModule.forRoot(infrastructure, config),
  });
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onClose', async () => {
      await telemetry.shutdown();
    });
  await startPlacementListener(app, config);
  await app.listen({ port: config.PORT, host: config.HOST });
  await startQueryEngine(app, logger);
}

void main();
