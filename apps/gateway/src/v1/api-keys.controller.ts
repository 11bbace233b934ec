import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post } from '@nestjs/common';
import type { ApiKeysService } from '@runplane/accounts';
import {
  type ApiKeyCreatedDto,
  apiKeyCreateInput,
  type ApiKeyCreateInput,
  type ApiKeyDto,
  apiKeyUpdateInput,
  type ApiKeyUpdateInput,
  type Principal,
} from '@runplane/contracts';
import { Authenticated, CurrentPrincipal, Reads, Writes, ZodPipe } from '@runplane/http';
import { API_KEYS_SERVICE } from './tokens';

/** Runplane's API-key management extension of the v1 API. */
@Controller('v1/apikeys')
@Authenticated()
export class ApiKeysController {
  constructor(@Inject(API_KEYS_SERVICE) private readonly apiKeys: ApiKeysService) {}

  @Post()
  @Writes()
  @HttpCode(201)
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body(new ZodPipe(apiKeyCreateInput)) input: ApiKeyCreateInput,
  ): Promise<ApiKeyCreatedDto> {
    const { apiKey, secret } = await this.apiKeys.create(principal.accountId, input);
    return { ...apiKey, key: secret };
  }

  @Get()
  @Reads()
  list(@CurrentPrincipal() principal: Principal): Promise<ApiKeyDto[]> {
    return this.apiKeys.list(principal.accountId);
  }

  @Get(':id')
  @Reads()
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<ApiKeyDto> {
    return this.apiKeys.get(principal.accountId, id);
  }

  @Patch(':id')
  @Writes()
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body(new ZodPipe(apiKeyUpdateInput)) input: ApiKeyUpdateInput,
  ): Promise<ApiKeyDto> {
    return this.apiKeys.update(principal.accountId, id, input);
  }

  /** `POST /x/{id}/update` is v1's synonym for PATCH on every resource. */
  @Post(':id/update')
  @Writes()
  @HttpCode(200)
  updateSynonym(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body(new ZodPipe(apiKeyUpdateInput)) input: ApiKeyUpdateInput,
  ): Promise<ApiKeyDto> {
    return this.apiKeys.update(principal.accountId, id, input);
  }

  @Delete(':id')
  @Writes()
  @HttpCode(204)
  async remove(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<void> {
    await this.apiKeys.delete(principal.accountId, id);
  }
}
