import { Body, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query } from '@nestjs/common';
import type { Principal } from '@runplane/contracts';
import { CurrentPrincipal, Reads, V2Body, V2Controller, V2Query, Writes } from '../http';
import { type PageQuery, paginationQuery } from '../http/pagination';
import { TemplatesV2Service } from './templates-v2.service';
import {
  createTemplateRequest,
  type CreateTemplateRequest,
  type ListTemplatesResponse,
  type TemplateV2,
  updateTemplateRequest,
  type UpdateTemplateRequest,
} from './templates.schemas';

/** RunPod v2 `/templates`: own templates, public and platform ones readable by id, writable only by their owner. */
@V2Controller('templates')
export class TemplatesV2Controller {
  constructor(@Inject(TemplatesV2Service) private readonly templates: TemplatesV2Service) {}

  @Get()
  @Reads()
  list(
    @CurrentPrincipal() principal: Principal,
    @Query(new V2Query(paginationQuery)) page: PageQuery,
  ): Promise<ListTemplatesResponse> {
    return this.templates.list(principal.accountId, page);
  }

  @Post()
  @Writes()
  create(
    @CurrentPrincipal() principal: Principal,
    @Body(new V2Body(createTemplateRequest)) input: CreateTemplateRequest,
  ): Promise<TemplateV2> {
    return this.templates.create(principal.accountId, input);
  }

  @Get(':id')
  @Reads()
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<TemplateV2> {
    return this.templates.get(principal.accountId, id);
  }

  @Patch(':id')
  @Writes()
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body(new V2Body(updateTemplateRequest)) input: UpdateTemplateRequest,
  ): Promise<TemplateV2> {
    return this.templates.update(principal.accountId, id, input);
  }

  @Delete(':id')
  @Writes()
  @HttpCode(204)
  async remove(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<void> {
    await this.templates.delete(principal.accountId, id);
  }
}
