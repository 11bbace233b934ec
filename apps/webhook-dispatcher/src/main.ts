// telemetry must stay the first import: it starts OpenTelemetry before the app's modules load.
import { config, telemetry } from './telemetry';
import { runService } from '@runplane/http';
import { WebhookDispatcherModule } from './webhook-dispatcher.module';

void runService({
  serviceName: 'webhook-dispatcher',
  errorStyle: 'v1',
  config,
  telemetry,
  module: (infrastructure) => WebhookDispatcherModule.forRoot(config, infrastructure),
});
