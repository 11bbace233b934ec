import { createAccountsServices } from '@runplane/accounts';
import type { DbClient } from '@runplane/db';

/** An account of the test file `label`, with an API key of scope ALL. */
export async function accountWithKey(db: DbClient, label: string): Promise<{ accountId: string; secret: string }> {
  const { accounts, apiKeys } = createAccountsServices(db);
  const account = await accounts.create({ name: `${label}-account` });
  const { secret } = await apiKeys.create(account.id, { name: 'test key', scope: 'ALL' });
  return { accountId: account.id, secret };
}
