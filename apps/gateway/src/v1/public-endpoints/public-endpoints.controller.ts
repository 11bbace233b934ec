import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post } from '@nestjs/common';
import {
  type Principal,
  publicEndpointCreateInput,
  type PublicEndpointCreateInput,
  type PublicEndpointDto,
  publicEndpointUpdateInput,
  type PublicEndpointUpdateInput,
} from '@runplane/contracts';
import type { PublicEndpointsService } from '@runplane/endpoints';
import { Authenticated, CurrentPrincipal, Reads, Writes, ZodPipe } from '@runplane/http';
import { PUBLIC_ENDPOINTS_SERVICE } from './public-endpoints.tokens';

/**
 * Runplane's extension: the account's public endpoints (its queue endpoints published under a model name that every
 * account may call on the job API). Any account may publish its own endpoints, with a key that may write.
 */
@Controller('v1/public-endpoints')
@Authenticated()
export class PublicEndpointsController {
  constructor(@Inject(PUBLIC_ENDPOINTS_SERVICE) private readonly publications: PublicEndpointsService) {}

  @Post()
  @Writes()
  @HttpCode(201)
  publish(
    @CurrentPrincipal() principal: Principal,
    @Body(new ZodPipe(publicEndpointCreateInput)) input: PublicEndpointCreateInput,
  ): Promise<PublicEndpointDto> {
    return this.publications.publish(principal.accountId, input);
  }

  @Get()
  @Reads()
  list(@CurrentPrincipal() principal: Principal): Promise<PublicEndpointDto[]> {
    return this.publications.list(principal.accountId);
  }

  @Get(':name')
  @Reads()
  get(@CurrentPrincipal() principal: Principal, @Param('name') name: string): Promise<PublicEndpointDto> {
    return this.publications.get(principal.accountId, name);
  }

  @Patch(':name')
  @Writes()
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('name') name: string,
    @Body(new ZodPipe(publicEndpointUpdateInput)) input: PublicEndpointUpdateInput,
  ): Promise<PublicEndpointDto> {
    return this.publications.update(principal.accountId, name, input);
  }

  @Delete(':name')
  @Writes()
  @HttpCode(204)
  async unpublish(@CurrentPrincipal() principal: Principal, @Param('name') name: string): Promise<void> {
    await this.publications.unpublish(principal.accountId, name);
  }
}
