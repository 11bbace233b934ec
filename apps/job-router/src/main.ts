// telemetry must stay the first import: it starts OpenTelemetry before the app's modules load.
import { config, telemetry } from './telemetry';
import { runService } from '@runplane/http';
import { createJobRouterEngine } from './engine';
import { JobRouterModule } from './job-router.module';

void runService({
  serviceName: 'job-router',
  errorStyle: 'job',
  // Jobs, inputs and results live in Redis: a NUL character in a handler's output is no reason to lose it.
  nulInBodies: 'keep',
  config,
  telemetry,
  module: (infrastructure) => JobRouterModule.forRoot(infrastructure, { config, engine: createJobRouterEngine }),
});
