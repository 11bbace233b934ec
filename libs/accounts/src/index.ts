import type { DbClient } from '@runplane/db';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';

export { AccountsService, type AccountDto } from './accounts.service';
export { ApiKeysService } from './api-keys.service';
export { AccountsRepository } from './accounts.repository';
export { ApiKeysRepository } from './api-keys.repository';
export { generateSecret, hashSecret, isWellFormedSecret } from './api-key-secret';

/** Accounts and API key services over one database client (for apps, the CLI and the start command). */
export function createAccountsServices(db: DbClient): { accounts: AccountsService; apiKeys: ApiKeysService } {
  return {
    accounts: new AccountsService(new AccountsRepository(db)),
    apiKeys: new ApiKeysService(new ApiKeysRepository(db)),
  };
}
