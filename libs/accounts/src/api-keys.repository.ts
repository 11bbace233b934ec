import type { ApiKey, ApiKeyScope, DbClient } from '@runplane/db';

/** Columns a new API key row is written with. */
export interface NewApiKeyRow {
  id: string;
  accountId: string;
  name: string;
  prefix: string;
  hash: string;
  scope: ApiKeyScope;
  allowedEndpointIds: string[];
}

/** Columns PATCH may change. */
export interface ApiKeyChanges {
  name?: string;
  scope?: ApiKeyScope;
  allowedEndpointIds?: string[];
  disabled?: boolean;
}

/** Persistence of API keys; every read and write but the hash lookup is scoped to an account. */
export class ApiKeysRepository {
  constructor(private readonly db: DbClient) {}

  create(data: NewApiKeyRow): Promise<ApiKey> {
    return this.db.apiKey.create({ data });
  }

  findByHash(hash: string): Promise<ApiKey | null> {
    return this.db.apiKey.findUnique({ where: { hash } });
  }

  findById(accountId: string, id: string): Promise<ApiKey | null> {
    return this.db.apiKey.findFirst({ where: { id, accountId } });
  }

  listByAccount(accountId: string): Promise<ApiKey[]> {
    return this.db.apiKey.findMany({ where: { accountId }, orderBy: { createdAt: 'asc' } });
  }

  /** Applies changes to the account's key; false when it has no such key. */
  async update(accountId: string, id: string, changes: ApiKeyChanges): Promise<boolean> {
    const { count } = await this.db.apiKey.updateMany({ where: { id, accountId }, data: changes });
    return count === 1;
  }

  /** Deletes the account's key; false when it has no such key. */
  async delete(accountId: string, id: string): Promise<boolean> {
    const { count } = await this.db.apiKey.deleteMany({ where: { id, accountId } });
    return count === 1;
  }

  async touchLastUsed(id: string, at: Date): Promise<void> {
    await this.db.apiKey.updateMany({ where: { id }, data: { lastUsedAt: at } });
  }
}
