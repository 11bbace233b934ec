import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query } from '@nestjs/common';
import {
  endpointCreateInput,
  type EndpointCreateInput,
  type EndpointDto,
  endpointQuery,
  type EndpointQuery,
  endpointUpdateInput,
  type EndpointUpdateInput,
  type Principal,
} from '@runplane/contracts';
import type { EndpointsService } from '@runplane/endpoints';
import { Authenticated, CurrentPrincipal, Reads, Writes, ZodPipe } from '@runplane/http';
import { ENDPOINTS_SERVICE } from './endpoints.tokens';

/** RunPod v1 `/endpoints`: serverless endpoint configuration of the caller's account. */
@Controller('v1/endpoints')
@Authenticated()
export class EndpointsController {
  constructor(@Inject(ENDPOINTS_SERVICE) private readonly endpoints: EndpointsService) {}

  @Post()
  @Writes()
  @HttpCode(200)
  create(
    @CurrentPrincipal() principal: Principal,
    @Body(new ZodPipe(endpointCreateInput)) input: EndpointCreateInput,
  ): Promise<EndpointDto> {
    return this.endpoints.create(principal.accountId, input);
  }

  @Get()
  @Reads()
  list(
    @CurrentPrincipal() principal: Principal,
    @Query(new ZodPipe(endpointQuery)) query: EndpointQuery,
  ): Promise<EndpointDto[]> {
    return this.endpoints.list(principal.accountId, query);
  }

  @Get(':endpointId')
  @Reads()
  get(
    @CurrentPrincipal() principal: Principal,
    @Param('endpointId') id: string,
    @Query(new ZodPipe(endpointQuery)) query: EndpointQuery,
  ): Promise<EndpointDto> {
    return this.endpoints.get(principal.accountId, id, query);
  }

  @Patch(':endpointId')
  @Writes()
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('endpointId') id: string,
    @Body(new ZodPipe(endpointUpdateInput)) input: EndpointUpdateInput,
  ): Promise<EndpointDto> {
    return this.endpoints.update(principal.accountId, id, input);
  }

  /** `POST /endpoints/{id}/update` is v1's synonym for PATCH. */
  @Post(':endpointId/update')
  @Writes()
  @HttpCode(200)
  updateSynonym(
    @CurrentPrincipal() principal: Principal,
    @Param('endpointId') id: string,
    @Body(new ZodPipe(endpointUpdateInput)) input: EndpointUpdateInput,
  ): Promise<EndpointDto> {
    return this.endpoints.update(principal.accountId, id, input);
  }

  /** Removes the configuration and the endpoint's worker Pods. */
  @Delete(':endpointId')
  @Writes()
  @HttpCode(204)
  async remove(@CurrentPrincipal() principal: Principal, @Param('endpointId') id: string): Promise<void> {
    await this.endpoints.delete(principal.accountId, id);
  }
}
