import { Body, Delete, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import type { S3KeysService } from '@runplane/accounts';
import { type Principal, type S3KeyCreatedDto, s3KeyCreateInput, type S3KeyCreateInput } from '@runplane/contracts';
import { S3_KEYS_SERVICE } from '../../v1/s3-keys/s3-keys.tokens';
import { CurrentPrincipal, Reads, V2Body, V2Controller, Writes } from '../http';
import type { S3KeyList } from './s3-keys.schemas';

/** `/v2/account/s3-keys`: the same S3 access keys as v1's `/s3keys`, in v2's shapes and problem answers. */
@V2Controller('account')
export class S3KeysV2Controller {
  constructor(@Inject(S3_KEYS_SERVICE) private readonly keys: S3KeysService) {}

  @Get('s3-keys')
  @Reads()
  async list(@CurrentPrincipal() principal: Principal): Promise<S3KeyList> {
    return { s3Keys: await this.keys.list(principal.accountId) };
  }

  @Post('s3-keys')
  @Writes()
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body(new V2Body(s3KeyCreateInput)) input: S3KeyCreateInput,
  ): Promise<S3KeyCreatedDto> {
    const { key, secretAccessKey } = await this.keys.create(principal.accountId, input);
    return { ...key, secretAccessKey };
  }

  @Delete('s3-keys/:id')
  @Writes()
  @HttpCode(204)
  async revoke(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<void> {
    await this.keys.revoke(principal.accountId, id);
  }
}
