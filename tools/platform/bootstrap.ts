import type { AccountsService, ApiKeysService } from '@runplane/accounts';
import { loadCatalogOverrides, seedCatalog } from '@runplane/catalog';
import { applyMigrations, type DbClient } from '@runplane/db';
import { readStateFile, STATE_FILES, writeSecretFile } from './state';

/** The admin key the runner prints, and whether it was just made. */
export interface AdminKey {
  secret: string;
  accountId: string;
  created: boolean;
}

/** Applies pending migrations and seeds the catalog (with overrides from a file when given). */
export async function prepareDatabase(
  db: DbClient,
  databaseUrl: string,
  catalogFile: string | undefined,
): Promise<void> {
  await applyMigrations(databaseUrl);
  const overrides = catalogFile === undefined ? undefined : await loadCatalogOverrides(catalogFile);
  await seedCatalog(db, overrides);
}

/** The account that owns the admin key: the recorded one while it exists, else a new one. */
async function adminAccountId(stateDir: string, accounts: AccountsService): Promise<string> {
  const recorded = readStateFile(stateDir, STATE_FILES.adminAccount);
  if (recorded !== undefined && (await accounts.findById(recorded)) !== null) return recorded;
  const account = await accounts.create({ name: 'admin' });
  writeSecretFile(stateDir, STATE_FILES.adminAccount, account.id);
  return account.id;
}

/**
 * Reuses the admin key kept in the state dir while it still authenticates (the database may have
 * been reset, or the key disabled); otherwise creates a new ALL-scope key and keeps that.
 */
export async function ensureAdminKey(
  stateDir: string,
  services: { accounts: AccountsService; apiKeys: ApiKeysService },
): Promise<AdminKey> {
  const kept = readStateFile(stateDir, STATE_FILES.adminKey);
  if (kept !== undefined) {
    const principal = await services.apiKeys.authenticate(kept);
    if (principal !== null && principal.scope === 'ALL') {
      return { secret: kept, accountId: principal.accountId, created: false };
    }
  }
  const accountId = await adminAccountId(stateDir, services.accounts);
  const { secret } = await services.apiKeys.create(accountId, { name: 'admin', scope: 'ALL' });
  writeSecretFile(stateDir, STATE_FILES.adminKey, secret);
  return { secret, accountId, created: true };
}
