// telemetry must stay the first import: it starts OpenTelemetry before the app's modules load.
import { config, telemetry } from './telemetry';
import { runService } from '@runplane/http';
import { GatewayModule } from './gateway.module';
import { GATEWAY_SERVICE } from './gateway-service';

void runService({
  ...GATEWAY_SERVICE,
  config,
  telemetry,
  module: (infrastructure) => GatewayModule.forRoot(config, infrastructure),
});
