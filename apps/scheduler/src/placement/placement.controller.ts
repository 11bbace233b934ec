import { Controller, Inject, type Type } from '@nestjs/common';
import { placementRpcRequest, type PlacementRpcReply } from '@runplane/contracts';
import { handleTraced, MessagePattern, Payload } from '@runplane/http';
import type { PlacementService } from './placement.service';

/** Injection token for the scheduler's PlacementService. */
export const PLACEMENT_SERVICE = Symbol('PLACEMENT_SERVICE');

/**
 * The placement RPC handler. Its message pattern carries the deployment's Redis prefix, known only at start-up, so
 * the controller class is made for it.
 */
export function placementController(pattern: string): Type<unknown> {
  @Controller()
  class PlacementController {
    constructor(@Inject(PLACEMENT_SERVICE) private readonly placement: PlacementService) {}

    @MessagePattern(pattern)
    reserve(@Payload() payload: unknown): Promise<PlacementRpcReply> {
      return handleTraced('placement.reserve', payload, () =>
        this.placement.reserve(placementRpcRequest.parse(payload)),
      );
    }
  }
  return PlacementController;
}
