import type { ContainerRegistryAuth, DbClient } from '@runplane/db';

/** Persistence of container registry auths; every method is scoped to an account. */
export class RegistryAuthRepository {
  constructor(private readonly db: DbClient) {}

  create(data: {
    id: string;
    accountId: string;
    name: string;
    username: string;
    passwordEncrypted: string;
  }): Promise<ContainerRegistryAuth> {
    return this.db.containerRegistryAuth.create({ data });
  }

  findById(accountId: string, id: string): Promise<ContainerRegistryAuth | null> {
    return this.db.containerRegistryAuth.findFirst({ where: { id, accountId } });
  }

  listByAccount(accountId: string): Promise<ContainerRegistryAuth[]> {
    return this.db.containerRegistryAuth.findMany({ where: { accountId }, orderBy: { createdAt: 'asc' } });
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const { count } = await this.db.containerRegistryAuth.deleteMany({ where: { id, accountId } });
    return count === 1;
  }
}
