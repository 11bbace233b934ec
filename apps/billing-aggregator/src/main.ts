// telemetry must stay the first import: it starts OpenTelemetry before the app's modules load.
import { config, telemetry } from './telemetry';
import { runService } from '@runplane/http';
import { BillingAggregatorModule } from './billing-aggregator.module';

void runService({
  serviceName: 'billing-aggregator',
  errorStyle: 'v1',
  config,
  telemetry,
  module: (infrastructure) => BillingAggregatorModule.forRoot(infrastructure),
});
