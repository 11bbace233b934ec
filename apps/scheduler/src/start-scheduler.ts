import { Transport } from '@nestjs/microservices';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { redisTransportOptions } from '@runplane/contracts';
import type { SchedulerConfig } from './config';

/** Attaches the placement RPC listener (Redis transport) to a built scheduler app and starts it. */
export async function startPlacementListener(app: NestFastifyApplication, config: SchedulerConfig): Promise<void> {
  app.connectMicroservice({ transport: Transport.REDIS, options: redisTransportOptions(config.REDIS_URL) }, { inheritAppConfig: true });
  await app.startAllMicroservices();
}
