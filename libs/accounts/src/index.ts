import type { DbClient } from '@runplane/db';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';
import type { AuthCache } from './auth-cache';

export { AccountsService, type AccountDto } from './accounts.service';
export { ApiKeysService } from './api-keys.service';
export { AccountsRepository } from './accounts.repository';
export { ApiKeysRepository } from './api-keys.repository';
export { PUBLIC_KEY_ENV, SshKeysRepository } from './ssh-keys.repository';
export { AUTH_CACHE_RENEW_AHEAD_MS, AUTH_CACHE_TTL_MS, AuthCache, CredentialCache, type Renewal } from './auth-cache';
export { SharedLookups } from './shared-lookups';
export { generateSecret, hashSecret, isWellFormedSecret } from './api-key-secret';
export {
  createWorkerTokensService,
  isWorkerToken,
  processWorkerTokenCache,
  WORKER_TOKEN_CACHE_TTL_MS,
  WORKER_TOKEN_REFRESH_AHEAD_MS,
  WorkerTokenCache,
  WorkerTokensRepository,
  WorkerTokensService,
  type WorkerIdentity,
  type WorkerTokenRow,
  type WorkerTokenSummary,
} from './worker-tokens';

/** Accounts and API key services over one database client (for apps, the CLI and the start command); the auth cache defaults to the process's. */
export function createAccountsServices(
  db: DbClient,
  authCache?: AuthCache,
): { accounts: AccountsService; apiKeys: ApiKeysService } {
  return {
    accounts: new AccountsService(new AccountsRepository(db)),
    apiKeys: new ApiKeysService(new ApiKeysRepository(db), authCache),
  };
}
export { createS3KeysService, S3KeysRepository, S3KeysService, type S3Credential } from './s3-keys';
