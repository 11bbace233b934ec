import { Body, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { Principal } from '@runplane/contracts';
import type { FastifyReply } from '@runplane/http';
import { CurrentPrincipal, Reads, V2Body, V2Controller, V2Query, Writes } from '../http';
import { PodsV2Service } from './pods-v2.service';
import {
  createPodRequest,
  type CreatePodRequest,
  type ListPodsQuery,
  listPodsQuery,
  type ListPodsResponse,
  podActionRequest,
  type PodActionRequest,
  type PodV2,
  updatePodRequest,
  type UpdatePodRequest,
} from './pods.schemas';

/** RunPod v2 `/pods`: the same Pods as v1's `/pods`, in v2's shapes, with lifecycle actions on `/action`. */
@V2Controller('pods')
export class PodsV2Controller {
  constructor(@Inject(PodsV2Service) private readonly pods: PodsV2Service) {}

  @Get()
  @Reads()
  list(
    @CurrentPrincipal() principal: Principal,
    @Query(new V2Query(listPodsQuery)) query: ListPodsQuery,
  ): Promise<ListPodsResponse> {
    return this.pods.list(principal.accountId, query);
  }

  @Post()
  @Writes()
  create(
    @CurrentPrincipal() principal: Principal,
    @Body(new V2Body(createPodRequest)) input: CreatePodRequest,
  ): Promise<PodV2> {
    return this.pods.create(principal.accountId, input);
  }

  @Get(':id')
  @Reads()
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<PodV2> {
    return this.pods.get(principal.accountId, id);
  }

  @Patch(':id')
  @Writes()
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body(new V2Body(updatePodRequest)) input: UpdatePodRequest,
  ): Promise<PodV2> {
    return this.pods.update(principal.accountId, id, input);
  }

  @Delete(':id')
  @Writes()
  @HttpCode(204)
  async remove(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<void> {
    await this.pods.delete(principal.accountId, id);
  }

  /** terminate answers 204 without a body, the other actions 200 with the Pod. */
  @Post(':id/action')
  @Writes()
  @HttpCode(200)
  async act(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body(new V2Body(podActionRequest)) input: PodActionRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<PodV2 | undefined> {
    const pod = await this.pods.act(principal.accountId, id, input.action);
    if (pod) return pod;
    void reply.status(204);
    return undefined;
  }
}
