import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import type { S3KeysService } from '@runplane/accounts';
import {
  type Principal,
  type S3KeyCreatedDto,
  s3KeyCreateInput,
  type S3KeyCreateInput,
  type S3KeyDto,
} from '@runplane/contracts';
import { Authenticated, CurrentPrincipal, Reads, Writes, ZodPipe } from '@runplane/http';
import { S3_KEYS_SERVICE } from './s3-keys.tokens';

/** Runplane's extension of v1: the S3 access keys that reach the account's network volumes over S3. */
@Controller('v1/s3keys')
@Authenticated()
export class S3KeysController {
  constructor(@Inject(S3_KEYS_SERVICE) private readonly keys: S3KeysService) {}

  @Post()
  @Writes()
  @HttpCode(201)
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body(new ZodPipe(s3KeyCreateInput)) input: S3KeyCreateInput,
  ): Promise<S3KeyCreatedDto> {
    const { key, secretAccessKey } = await this.keys.create(principal.accountId, input);
    return { ...key, secretAccessKey };
  }

  @Get()
  @Reads()
  list(@CurrentPrincipal() principal: Principal): Promise<S3KeyDto[]> {
    return this.keys.list(principal.accountId);
  }

  @Delete(':id')
  @Writes()
  @HttpCode(204)
  async revoke(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<void> {
    await this.keys.revoke(principal.accountId, id);
  }
}
