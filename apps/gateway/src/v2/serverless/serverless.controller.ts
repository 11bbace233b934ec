import { Body, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query } from '@nestjs/common';
import type { Principal } from '@runplane/contracts';
import type { EndpointReleasesRepository, EndpointsService } from '@runplane/endpoints';
import { CurrentPrincipal, Reads, V2Body, V2Controller, V2Query, Writes } from '../http';
import { type PageQuery, paginationQuery } from '../http/pagination';
import { releasesView } from './releases-view';
import {
  createEndpointRequest,
  type CreateEndpointRequest,
  type EndpointView,
  type ListEndpointsResponse,
  type ListReleasesResponse,
  type ListWorkersResponse,
  updateEndpointRequest,
  type UpdateEndpointRequest,
} from './serverless.schemas';
import { ServerlessV2Service } from './serverless.service';
import { ENDPOINT_RELEASES, V1_ENDPOINTS } from './serverless.tokens';
import { workersView } from './workers-view';

/** RunPod v2 `/serverless`: the account's endpoints (the rows of v1 `/endpoints`), their workers and releases. */
@V2Controller('serverless')
export class ServerlessController {
  constructor(
    @Inject(ServerlessV2Service) private readonly serverless: ServerlessV2Service,
    @Inject(V1_ENDPOINTS) private readonly endpoints: EndpointsService,
    @Inject(ENDPOINT_RELEASES) private readonly releases: EndpointReleasesRepository,
  ) {}

  @Get()
  @Reads()
  list(
    @CurrentPrincipal() principal: Principal,
    @Query(new V2Query(paginationQuery)) page: PageQuery,
  ): Promise<ListEndpointsResponse> {
    return this.serverless.list(principal.accountId, page);
  }

  @Post()
  @Writes()
  create(
    @CurrentPrincipal() principal: Principal,
    @Body(new V2Body(createEndpointRequest)) body: CreateEndpointRequest,
  ): Promise<EndpointView> {
    return this.serverless.create(principal.accountId, body);
  }

  @Get(':id')
  @Reads()
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<EndpointView> {
    return this.serverless.get(principal.accountId, id);
  }

  @Patch(':id')
  @Writes()
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body(new V2Body(updateEndpointRequest)) body: UpdateEndpointRequest,
  ): Promise<EndpointView> {
    return this.serverless.update(principal.accountId, id, body);
  }

  @Delete(':id')
  @Writes()
  @HttpCode(204)
  async remove(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<void> {
    await this.serverless.delete(principal.accountId, id);
  }

  @Get(':id/workers')
  @Reads()
  async workers(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<ListWorkersResponse> {
    const dto = await this.endpoints.get(principal.accountId, id, { includeTemplate: false, includeWorkers: true });
    return workersView(dto);
  }

  @Get(':id/releases')
  @Reads()
  async listReleases(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<ListReleasesResponse> {
    const dto = await this.endpoints.get(principal.accountId, id, { includeTemplate: false, includeWorkers: true });
    return releasesView(dto, await this.releases.list(principal.accountId, id));
  }
}
