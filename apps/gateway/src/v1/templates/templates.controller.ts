import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query } from '@nestjs/common';
import {
  type Principal,
  templateCreateInput,
  type TemplateCreateInput,
  type TemplateDto,
  templateQuery,
  type TemplateQuery,
  templateUpdateInput,
  type TemplateUpdateInput,
} from '@runplane/contracts';
import { Authenticated, CurrentPrincipal, Reads, Writes, ZodPipe } from '@runplane/http';
import type { TemplatesService } from '@runplane/workloads';
import { TEMPLATES_SERVICE } from './templates.tokens';

/** RunPod v1 `/templates`: own templates plus public and platform ones, writable only by their owner. */
@Controller('v1/templates')
@Authenticated()
export class TemplatesController {
  constructor(@Inject(TEMPLATES_SERVICE) private readonly templates: TemplatesService) {}

  @Post()
  @Writes()
  @HttpCode(200)
  create(
    @CurrentPrincipal() principal: Principal,
    @Body(new ZodPipe(templateCreateInput)) input: TemplateCreateInput,
  ): Promise<TemplateDto> {
    return this.templates.create(principal.accountId, input);
  }

  @Get()
  @Reads()
  list(
    @CurrentPrincipal() principal: Principal,
    @Query(new ZodPipe(templateQuery)) query: TemplateQuery,
  ): Promise<TemplateDto[]> {
    return this.templates.list(principal.accountId, query);
  }

  /** The include flags only shape lists: a template asked for by id is returned whenever the caller may read it. */
  @Get(':templateId')
  @Reads()
  get(
    @CurrentPrincipal() principal: Principal,
    @Param('templateId') id: string,
    @Query(new ZodPipe(templateQuery)) _query: TemplateQuery,
  ): Promise<TemplateDto> {
    return this.templates.get(principal.accountId, id);
  }

  @Patch(':templateId')
  @Writes()
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('templateId') id: string,
    @Body(new ZodPipe(templateUpdateInput)) input: TemplateUpdateInput,
  ): Promise<TemplateDto> {
    return this.templates.update(principal.accountId, id, input);
  }

  /** `POST /templates/{id}/update` is v1's synonym for PATCH. */
  @Post(':templateId/update')
  @Writes()
  @HttpCode(200)
  updateSynonym(
    @CurrentPrincipal() principal: Principal,
    @Param('templateId') id: string,
    @Body(new ZodPipe(templateUpdateInput)) input: TemplateUpdateInput,
  ): Promise<TemplateDto> {
    return this.templates.update(principal.accountId, id, input);
  }

  @Delete(':templateId')
  @Writes()
  @HttpCode(204)
  async remove(@CurrentPrincipal() principal: Principal, @Param('templateId') id: string): Promise<void> {
    await this.templates.delete(principal.accountId, id);
  }
}
