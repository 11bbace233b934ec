import type { OnApplicationShutdown } from '@nestjs/common';
import {
  DomainError,
  placementPattern,
  placementRpcReply,
  type PlacementRpcRequest,
  redisTransportOptions,
} from '@runplane/contracts';
import { callTraced, type ClientProxy, ClientProxyFactory, Transport } from '@runplane/http';
import type { PodPlacementClient, PodPlacementReply } from '@runplane/workloads';
import { firstValueFrom, timeout, TimeoutError } from 'rxjs';

/**
 * Asks the scheduler for a placement over the placement RPC (Nest microservices, Redis transport). A scheduler that
 * does not answer in time is reported like missing capacity (503), so the create fails at once and writes nothing.
 */
export class SchedulerPlacementClient implements PodPlacementClient, OnApplicationShutdown {
  private readonly client: ClientProxy;
  private readonly pattern: string;

  constructor(
    redisUrl: string,
    redisPrefix: string,
    private readonly timeoutMs = 10_000,
  ) {
    this.client = ClientProxyFactory.create({ transport: Transport.REDIS, options: redisTransportOptions(redisUrl) });
    this.pattern = placementPattern(redisPrefix);
  }

  async reserve(request: PlacementRpcRequest): Promise<PodPlacementReply> {
    try {
      // One trace with the scheduler's placement: the message carries this call's trace context.
      const reply = await callTraced('placement.reserve', request, (message) =>
        firstValueFrom(this.client.send<unknown>(this.pattern, message).pipe(timeout(this.timeoutMs))),
      );
      return placementRpcReply.parse(reply);
    } catch (error) {
      if (error instanceof TimeoutError) {
        throw new DomainError(
          'NO_CAPACITY',
          'The scheduler did not answer the placement request in time; retry shortly',
        );
      }
      throw error instanceof Error ? error : new Error(`placement failed: ${JSON.stringify(error)}`);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}
