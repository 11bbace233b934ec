import type { Account, DbClient } from '@runplane/db';

/** Persistence of accounts. */
export class AccountsRepository {
  constructor(private readonly db: DbClient) {}

  create(data: { id: string; name: string }): Promise<Account> {
    return this.db.account.create({ data });
  }

  findById(id: string): Promise<Account | null> {
    return this.db.account.findUnique({ where: { id } });
  }

  list(): Promise<Account[]> {
    return this.db.account.findMany({ orderBy: { createdAt: 'asc' } });
  }
}
