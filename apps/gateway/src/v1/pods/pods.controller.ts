import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query } from '@nestjs/common';
import {
  podCreateInput,
  type PodCreateInput,
  type PodDto,
  podIncludeQuery,
  type PodIncludeQuery,
  podListQuery,
  type PodListQuery,
  podUpdateInput,
  type PodUpdateInput,
  type Principal,
} from '@runplane/contracts';
import { Authenticated, CurrentPrincipal, Reads, Writes, ZodPipe } from '@runplane/http';
import type { PodsService } from '@runplane/workloads';
import { PODS_SERVICE } from './pods.tokens';

/**
 * RunPod v1 `/pods`. start, stop, restart and reset answer 200 with the Pod, since runpodctl parses the body;
 * they take no body (runpodctl still sends `Content-Type: application/json`).
 */
@Controller('v1/pods')
@Authenticated()
export class PodsController {
  constructor(@Inject(PODS_SERVICE) private readonly pods: PodsService) {}

  @Post()
  @Writes()
  @HttpCode(201)
  create(
    @CurrentPrincipal() principal: Principal,
    @Body(new ZodPipe(podCreateInput)) input: PodCreateInput,
  ): Promise<PodDto> {
    return this.pods.create(principal.accountId, input);
  }

  @Get()
  @Reads()
  list(
    @CurrentPrincipal() principal: Principal,
    @Query(new ZodPipe(podListQuery)) query: PodListQuery,
  ): Promise<PodDto[]> {
    return this.pods.list(principal.accountId, query);
  }

  @Get(':podId')
  @Reads()
  get(
    @CurrentPrincipal() principal: Principal,
    @Param('podId') id: string,
    @Query(new ZodPipe(podIncludeQuery)) include: PodIncludeQuery,
  ): Promise<PodDto> {
    return this.pods.get(principal.accountId, id, include);
  }

  @Patch(':podId')
  @Writes()
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('podId') id: string,
    @Body(new ZodPipe(podUpdateInput)) input: PodUpdateInput,
  ): Promise<PodDto> {
    return this.pods.update(principal.accountId, id, input);
  }

  /** `POST /pods/{podId}/update` is v1's synonym for PATCH. */
  @Post(':podId/update')
  @Writes()
  @HttpCode(200)
  updateSynonym(
    @CurrentPrincipal() principal: Principal,
    @Param('podId') id: string,
    @Body(new ZodPipe(podUpdateInput)) input: PodUpdateInput,
  ): Promise<PodDto> {
    return this.pods.update(principal.accountId, id, input);
  }

  @Post(':podId/start')
  @Writes()
  @HttpCode(200)
  start(@CurrentPrincipal() principal: Principal, @Param('podId') id: string): Promise<PodDto> {
    return this.pods.act(principal.accountId, id, 'start');
  }

  @Post(':podId/stop')
  @Writes()
  @HttpCode(200)
  stop(@CurrentPrincipal() principal: Principal, @Param('podId') id: string): Promise<PodDto> {
    return this.pods.act(principal.accountId, id, 'stop');
  }

  @Post(':podId/restart')
  @Writes()
  @HttpCode(200)
  restart(@CurrentPrincipal() principal: Principal, @Param('podId') id: string): Promise<PodDto> {
    return this.pods.act(principal.accountId, id, 'restart');
  }

  @Post(':podId/reset')
  @Writes()
  @HttpCode(200)
  reset(@CurrentPrincipal() principal: Principal, @Param('podId') id: string): Promise<PodDto> {
    return this.pods.act(principal.accountId, id, 'reset');
  }

  @Delete(':podId')
  @Writes()
  @HttpCode(204)
  async remove(@CurrentPrincipal() principal: Principal, @Param('podId') id: string): Promise<void> {
    await this.pods.delete(principal.accountId, id);
  }
}
