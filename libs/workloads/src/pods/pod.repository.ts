import type { DbClient, Machine, NetworkVolume, Pod, Prisma, SavingsPlan } from '@runplane/db';

/** A Pod row with the relations its wire form can show. */
export type PodRow = Pod & {
  savingsPlans: SavingsPlan[];
  machine: Machine | null;
  networkVolume: NetworkVolume | null;
};

/** Filters of a Pod listing; array filters match any of their values. */
export interface PodFilter {
  id?: string;
  name?: string;
  image?: string;
  computeType?: 'GPU' | 'CPU';
  desiredStatus?: 'RUNNING' | 'EXITED' | 'TERMINATED';
  gpuTypeIds?: string[];
  cpuFlavorIds?: string[];
  dataCenterIds?: string[];
  endpointId?: string;
  networkVolumeId?: string;
  templateId?: string;
  /** Serverless worker Pods are left out unless asked for. */
  includeWorkers: boolean;
}

const withRelations = { savingsPlans: { orderBy: { startTime: 'asc' } }, machine: true, networkVolume: true } as const;

function toWhere(accountId: string, filter: PodFilter): Prisma.PodWhereInput {
  return {
    accountId,
    id: filter.id,
    name: filter.name,
    image: filter.image,
    computeType: filter.computeType,
    desiredStatus: filter.desiredStatus,
    gpuTypeId: filter.gpuTypeIds ? { in: filter.gpuTypeIds } : undefined,
    cpuFlavorId: filter.cpuFlavorIds ? { in: filter.cpuFlavorIds } : undefined,
    dataCenterId: filter.dataCenterIds ? { in: filter.dataCenterIds } : undefined,
    networkVolumeId: filter.networkVolumeId,
    templateId: filter.templateId,
    ...(filter.includeWorkers ? {} : { endpointId: null }),
    ...(filter.endpointId === undefined ? {} : { AND: [{ endpointId: filter.endpointId }] }),
  };
}

/** Persistence of Pods; every method is scoped to an account. */
export class PodRepository {
  constructor(private readonly db: DbClient) {}

  async create(data: Prisma.PodUncheckedCreateInput): Promise<PodRow> {
    return this.db.pod.create({ data, include: withRelations });
  }

  /**
   * The account's SSH public keys, one a line (the `PUBLIC_KEY` a new Pod gets), or undefined when it has none or the
   * Pod's template turns SSH off (v2 `startSsh: false`).
   */
  async sshPublicKeys(accountId: string, templateId?: string | null): Promise<string | undefined> {
    if (templateId) {
      const template = await this.db.template.findUnique({ where: { id: templateId }, select: { startSsh: true } });
      if (template?.startSsh === false) return undefined;
    }
    const keys = await this.db.sshKey.findMany({
      where: { accountId },
      orderBy: { position: 'asc' },
      select: { publicKey: true },
    });
    return keys.length > 0 ? keys.map((key) => key.publicKey).join('\n') : undefined;
  }

  findById(accountId: string, id: string): Promise<PodRow | null> {
    return this.db.pod.findFirst({ where: { id, accountId }, include: withRelations });
  }

  list(accountId: string, filter: PodFilter): Promise<PodRow[]> {
    return this.db.pod.findMany({
      where: toWhere(accountId, filter),
      include: withRelations,
      orderBy: { createdAt: 'asc' },
    });
  }

  /**
   * Writes `data` only if the row is still as it was read (same `updatedAt`), so two concurrent lifecycle calls
   * cannot both act on the same state. Returns false when the row changed or is gone.
   */
  async updateIfUnchanged(
    accountId: string,
    id: string,
    readAt: Date,
    data: Prisma.PodUncheckedUpdateManyInput,
  ): Promise<boolean> {
    const { count } = await this.db.pod.updateMany({ where: { id, accountId, updatedAt: readAt }, data });
    return count === 1;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const { count } = await this.db.pod.deleteMany({ where: { id, accountId } });
    return count === 1;
  }

  /** The caller's network volume (a Pod may only attach its own). */
  findNetworkVolume(accountId: string, id: string): Promise<NetworkVolume | null> {
    return this.db.networkVolume.findFirst({ where: { id, accountId } });
  }

  /** Whether the caller owns this container registry auth. */
  async ownsRegistryAuth(accountId: string, id: string): Promise<boolean> {
    return (await this.db.containerRegistryAuth.count({ where: { id, accountId } })) === 1;
  }
}
