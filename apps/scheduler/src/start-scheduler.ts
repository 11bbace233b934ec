import { redisTransportOptions } from '@runplane/contracts';
import { type NestFastifyApplication, Transport } from '@runplane/http';
import type { SchedulerConfig } from './config';

/**
 * Attaches the placement RPC listener (Redis transport) to a built scheduler app and starts it. The HTTP app's
 * exception filter is not inherited: an RPC error goes back to the caller as an RPC error, not as an HTTP reply.
 */
export async function startPlacementListener(app: NestFastifyApplication, config: SchedulerConfig): Promise<void> {
  app.connectMicroservice({ transport: Transport.REDIS, options: redisTransportOptions(config.REDIS_URL) });
  await app.startAllMicroservices();
}
