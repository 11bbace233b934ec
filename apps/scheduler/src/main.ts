// telemetry must stay the first import: it starts OpenTelemetry before the app's modules load.
import { config, telemetry } from './telemetry';
import { runService } from '@runplane/http';
import { SchedulerModule } from './scheduler.module';

void runService({
  serviceName: 'scheduler',
  errorStyle: 'v1',
  config,
  telemetry,
  module: (infrastructure) => SchedulerModule.forRoot(infrastructure),
});
