import { type ContainerRegistryAuth, type DbClient, isForeignKeyViolation, withTransaction } from '@runplane/db';
import { FINISHED_POD_STATUS, type UsageGroup } from './in-use';

/** Outcome of a guarded delete: done, nothing to delete, or refused because something still uses it. */
export type GuardedDelete = { status: 'deleted' } | { status: 'missing' } | { status: 'in-use'; usage: UsageGroup[] };

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

  /** Replaces the auth's username and sealed password; null when the auth is not the account's. */
  async updateCredentials(
    accountId: string,
    id: string,
    data: { username: string; passwordEncrypted: string },
  ): Promise<ContainerRegistryAuth | null> {
    const { count } = await this.db.containerRegistryAuth.updateMany({ where: { id, accountId }, data });
    return count === 1 ? this.findById(accountId, id) : null;
  }

  listByAccount(accountId: string): Promise<ContainerRegistryAuth[]> {
    return this.db.containerRegistryAuth.findMany({ where: { accountId }, orderBy: { createdAt: 'asc' } });
  }

  /**
   * Deletes the auth unless a live Pod or a template uses it. Terminated Pods only keep the id as history,
   * so their reference is cleared in the same transaction (the foreign key would refuse otherwise).
   */
  async deleteUnused(accountId: string, id: string): Promise<GuardedDelete> {
    try {
      return await withTransaction(this.db, async (tx) => {
        if (!(await tx.containerRegistryAuth.findFirst({ where: { id, accountId }, select: { id: true } }))) {
          return { status: 'missing' };
        }
        const where = { containerRegistryAuthId: id };
        const idsOnly = { select: { id: true }, orderBy: { id: 'asc' } } as const;
        const pods = await tx.pod.findMany({
          where: { ...where, desiredStatus: { not: FINISHED_POD_STATUS } },
          ...idsOnly,
        });
        const templates = await tx.template.findMany({ where, ...idsOnly });
        if (pods.length > 0 || templates.length > 0) {
          const usage = [
            { kind: 'pods', ids: pods.map((p) => p.id) },
            { kind: 'templates', ids: templates.map((t) => t.id) },
          ];
          return { status: 'in-use', usage };
        }
        await tx.pod.updateMany({
          where: { ...where, desiredStatus: FINISHED_POD_STATUS },
          data: { containerRegistryAuthId: null },
        });
        await tx.containerRegistryAuth.deleteMany({ where: { id, accountId } });
        return { status: 'deleted' };
      });
    } catch (error) {
      // A Pod or template created between the check and the delete: the foreign key caught it.
      if (isForeignKeyViolation(error)) return { status: 'in-use', usage: [] };
      throw error;
    }
  }
}
