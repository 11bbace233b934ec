import { Body, Get, Inject, Put } from '@nestjs/common';
import { SshKeysRepository } from '@runplane/accounts';
import type { Principal } from '@runplane/contracts';
import { CurrentPrincipal, Reads, V2Body, V2Controller, Writes } from '../http';
import { type SshKeys, updateSshKeysRequest, type UpdateSshKeysRequest } from './account.schemas';

/** `/v2/account/ssh-keys`: the keys new Pods of the account get in PUBLIC_KEY; PUT replaces them all. */
@V2Controller('account')
export class AccountController {
  constructor(@Inject(SshKeysRepository) private readonly sshKeys: SshKeysRepository) {}

  @Get('ssh-keys')
  @Reads()
  async list(@CurrentPrincipal() principal: Principal): Promise<SshKeys> {
    return { keys: await this.sshKeys.list(principal.accountId) };
  }

  @Put('ssh-keys')
  @Writes()
  async replace(
    @CurrentPrincipal() principal: Principal,
    @Body(new V2Body(updateSshKeysRequest)) input: UpdateSshKeysRequest,
  ): Promise<SshKeys> {
    return { keys: await this.sshKeys.replace(principal.accountId, input.keys) };
  }
}
