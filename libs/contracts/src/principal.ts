import type { ApiKeyScope } from './api-keys';

/** Who is calling: the account and the key an authenticated request acts as. */
export interface Principal {
  accountId: string;
  apiKeyId: string;
  scope: ApiKeyScope;
  allowedEndpointIds: readonly string[];
}
