import { type DbClient, isForeignKeyViolation, type NetworkVolume, withTransaction } from '@runplane/db';
import { FINISHED_POD_STATUS } from '../registry-auth/in-use';
import type { GuardedDelete } from '../registry-auth/registry-auth.repository';

/** Persistence of network volumes; every method is scoped to an account. */
export class NetworkVolumesRepository {
  constructor(private readonly db: DbClient) {}

  create(data: {
    id: string;
    accountId: string;
    name: string;
    size: number;
    dataCenterId: string;
  }): Promise<NetworkVolume> {
    return this.db.networkVolume.create({ data });
  }

  findOwned(accountId: string, id: string): Promise<NetworkVolume | null> {
    return this.db.networkVolume.findFirst({ where: { id, accountId } });
  }

  listByAccount(accountId: string): Promise<NetworkVolume[]> {
    return this.db.networkVolume.findMany({ where: { accountId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  }

  async rename(accountId: string, id: string, name: string): Promise<boolean> {
    const { count } = await this.db.networkVolume.updateMany({ where: { id, accountId }, data: { name } });
    return count === 1;
  }

  /** Grows the volume; false when it is gone or already at least `size` (a concurrent grow won). */
  async grow(accountId: string, id: string, size: number): Promise<boolean> {
    const { count } = await this.db.networkVolume.updateMany({
      where: { id, accountId, size: { lt: size } },
      data: { size },
    });
    return count === 1;
  }

  /**
   * Deletes the volume unless a live Pod or an endpoint has it attached. Terminated Pods only keep the id
   * as history, so their reference is cleared in the same transaction (the foreign key would refuse).
   */
  async deleteUnattached(accountId: string, id: string): Promise<GuardedDelete> {
    try {
      return await withTransaction(this.db, async (tx) => {
        if (!(await tx.networkVolume.findFirst({ where: { id, accountId }, select: { id: true } })))
          return { status: 'missing' };
        const pods = await tx.pod.findMany({
          where: { networkVolumeId: id, desiredStatus: { not: FINISHED_POD_STATUS } },
          select: { id: true },
          orderBy: { id: 'asc' },
        });
        const endpoints = await tx.endpoint.findMany({
          where: { OR: [{ networkVolumeId: id }, { networkVolumeIds: { has: id } }] },
          select: { id: true },
          orderBy: { id: 'asc' },
        });
        if (pods.length > 0 || endpoints.length > 0) {
          return {
            status: 'in-use',
            usage: [
              { kind: 'pods', ids: pods.map((p) => p.id) },
              { kind: 'endpoints', ids: endpoints.map((e) => e.id) },
            ],
          };
        }
        await tx.pod.updateMany({
          where: { networkVolumeId: id, desiredStatus: FINISHED_POD_STATUS },
          data: { networkVolumeId: null },
        });
        await tx.networkVolume.deleteMany({ where: { id, accountId } });
        return { status: 'deleted' };
      });
    } catch (error) {
      // A Pod or endpoint attached between the check and the delete: the foreign key caught it.
      if (isForeignKeyViolation(error)) return { status: 'in-use', usage: [] };
      throw error;
    }
  }
}
