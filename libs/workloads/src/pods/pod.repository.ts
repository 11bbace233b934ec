import type { DbClient, Machine, NetworkVolume, Pod, Prisma, SavingsPlan } from '@runplane/db';
import { podById, podWithPlans, type PodWithPlansRow } from './pod-statements';

/**
 * A Pod row with the relations its wire form can show: the savings plans always (they price the Pod), the machine and
 * network volume when the read loaded them (undefined when it did not).
 */
export type PodRow = Pod & {
  savingsPlans: SavingsPlan[];
  machine?: Machine | null;
  networkVolume?: NetworkVolume | null;
};

/** The columns a Pod's wire form shows: a listing reads these and no scheduler bookkeeping. */
const SHOWN = {
  id: true,
  accountId: true,
  name: true,
  image: true,
  templateId: true,
  endpointId: true,
  slsVersion: true,
  desiredStatus: true,
  locked: true,
  interruptible: true,
  cloudType: true,
  computeType: true,
  gpuTypeId: true,
  gpuCount: true,
  cpuFlavorId: true,
  vcpuCount: true,
  memoryInGb: true,
  dataCenterId: true,
  machineId: true,
  costPerHr: true,
  containerDiskInGb: true,
  volumeInGb: true,
  volumeMountPath: true,
  volumeEncrypted: true,
  networkVolumeId: true,
  containerRegistryAuthId: true,
  ports: true,
  env: true,
  dockerEntrypoint: true,
  dockerStartCmd: true,
  publicIp: true,
  portMappings: true,
  lastStartedAt: true,
  lastStatusChange: true,
  coldStart: true,
  createdAt: true,
} as const satisfies Prisma.PodSelect;

/** The columns of {@link SHOWN}, as Prisma reads them. */
type ShownColumns = Prisma.PodGetPayload<{ select: typeof SHOWN }>;

/** The v1 read of one Pod by id, with its savings plans, in one raw statement (pod-statements.ts). */
const SHOWN_BY_ID = podById(SHOWN, true);

/** A listed Pod: the columns its wire form shows, with the relations of a {@link PodRow}. */
export type ShownPodRow = ShownColumns & Omit<PodRow, keyof Pod>;

/** The columns a page of v2 Pods shows: those of v1 with the observed phase (v2's status) and global networking. */
const PAGED = { ...SHOWN, observedPhase: true, globalNetworking: true } as const satisfies Prisma.PodSelect;

/** The v2 read of one Pod by id, in one raw statement (pod-statements.ts). */
const PAGED_BY_ID = podById(PAGED, false);

/** A Pod of a v2 page: the columns its wire form shows. */
export type PagedPod = Prisma.PodGetPayload<{ select: typeof PAGED }>;

/** The relations a single Pod read loads beyond its savings plans: only those its answer shows. */
export interface PodRelations {
  machine: boolean;
  networkVolume: boolean;
}

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

/** Where a page of Pods continues: after the Pod created at `createdAt` with this `id`. */
export interface PodPosition {
  createdAt: Date;
  id: string;
}

/** Pods oldest first; the id orders Pods created in the same millisecond. */
const PAGE_ORDER = [{ createdAt: 'asc' }, { id: 'asc' }] as const satisfies Prisma.PodOrderByWithRelationInput[];

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

  /** The caller's Pod with its savings plans, and with its machine and network volume unless `relations` leaves them out. */
  findById(accountId: string, id: string, relations?: PodRelations): Promise<PodRow | null> {
    const include = relations
      ? { savingsPlans: withRelations.savingsPlans, machine: relations.machine, networkVolume: relations.networkVolume }
      : withRelations;
    return this.db.pod.findUnique({ where: { id, accountId }, include });
  }

  /**
   * The caller's Pod row alone, in one query, for answers that show none of its relations. Both reads by id are
   * findUnique (the id, narrowed to the account): Prisma serves it for a third of findFirst's CPU.
   */
  findPod(accountId: string, id: string): Promise<Pod | null> {
    return this.db.pod.findUnique({ where: { id, accountId } });
  }

  /**
   * The caller's Pod as its v1 answer reads it: the columns of {@link list}, its savings plans and `relations`. Without
   * a machine or network volume, one raw statement (pod-statements.ts).
   */
  async findShown(accountId: string, id: string, relations: PodRelations): Promise<ShownPodRow | null> {
    if (relations.machine || relations.networkVolume) {
      const select = { ...SHOWN, savingsPlans: withRelations.savingsPlans, ...relations };
      return this.db.pod.findUnique({ where: { id, accountId }, select });
    }
    const rows = await this.db.$queryRaw<PodWithPlansRow<ShownColumns>[]>(SHOWN_BY_ID({ accountId, id }));
    return podWithPlans(rows, SHOWN);
  }

  /** The caller's Pod as its v2 answer reads it: the columns of {@link page}, in one raw statement (pod-statements.ts). */
  async findPaged(accountId: string, id: string): Promise<PagedPod | null> {
    return (await this.db.$queryRaw<PagedPod[]>(PAGED_BY_ID({ accountId, id })))[0] ?? null;
  }

  /**
   * The caller's Pods matching `filter`, oldest first: the columns their wire form shows, each with its savings plans
   * and, when `relations` asks for them, its machine and network volume (both without `relations`).
   */
  list(accountId: string, filter: PodFilter, relations?: PodRelations): Promise<ShownPodRow[]> {
    const select = {
      ...SHOWN,
      savingsPlans: withRelations.savingsPlans,
      machine: relations?.machine ?? true,
      networkVolume: relations?.networkVolume ?? true,
    };
    return this.db.pod.findMany({ where: toWhere(accountId, filter), select, orderBy: PAGE_ORDER });
  }

  /**
   * One page of the caller's Pods (no serverless workers), the columns v2 shows, in the order of `list`: at most `limit` after
   * the Pod at `after` (its creation time and id), read through the (accountId, createdAt, id) index, so a page costs
   * the same however many Pods come before or after it.
   */
  page(accountId: string, after: PodPosition | undefined, limit: number): Promise<PagedPod[]> {
    const later = after
      ? {
          createdAt: { gte: after.createdAt },
          OR: [{ createdAt: { gt: after.createdAt } }, { id: { gt: after.id } }],
        }
      : {};
    const where = { accountId, endpointId: null, ...later };
    return this.db.pod.findMany({ where, select: PAGED, orderBy: PAGE_ORDER, take: limit });
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
