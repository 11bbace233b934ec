import { Module } from '@nestjs/common';
import { SshKeysRepository } from '@runplane/accounts';
import type { DbClient } from '@runplane/db';
import { DB_CLIENT } from '@runplane/http';
import { AccountController } from './account.controller';

/** `/v2/account/*`: the account's SSH keys. */
@Module({
  controllers: [AccountController],
  providers: [
    { provide: SshKeysRepository, inject: [DB_CLIENT], useFactory: (db: DbClient) => new SshKeysRepository(db) },
  ],
})
export class AccountModule {}
