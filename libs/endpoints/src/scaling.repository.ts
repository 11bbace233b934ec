import { type DbClient, newId, Prisma } from '@runplane/db';
import { EndpointSnapshot, type EndpointSnapshotOptions, type ScalableEndpoint } from './endpoint-snapshot';

export type { ScalableEndpoint } from './endpoint-snapshot';

/** Where a new worker was placed, and its price. */
export interface WorkerPlacement {
  machineId: string;
  gpuTypeId: string | null;
  cpuFlavorId: string | null;
  dataCenterId: string | null;
  costPerHr: number;
}

function stringEnv(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

const WORKER_SELECT = {
  id: true,
  accountId: true,
  endpointId: true,
  desiredStatus: true,
  observedPhase: true,
  statusMessage: true,
  serviceAddress: true,
  lastStartedAt: true,
  createdAt: true,
} satisfies Prisma.PodSelect;

/** On-demand prices: secure and community per GPU type, per vCPU-hour per CPU flavor. */
export interface WorkerPrices {
  gpu: Map<string, { secure: number | null; community: number | null }>;
  cpu: Map<string, number>;
}

/** A worker Pod as the autoscaler sees it. */
export type WorkerRow = Prisma.PodGetPayload<{ select: typeof WORKER_SELECT }>;

type WorkerRowInput = Prisma.PodCreateManyInput & { id: string; env: Record<string, string> };

/** What a worker takes from its endpoint's template: image, command, disks, ports and variables. */
function templateFields(endpoint: ScalableEndpoint) {
  const template = endpoint.template;
  return {
    image: template.imageName,
    templateId: template.id,
    containerDiskInGb: template.containerDiskInGb,
    volumeInGb: 0,
    volumeMountPath: template.volumeMountPath,
    containerRegistryAuthId: template.containerRegistryAuthId,
    ports: template.ports,
    env: { ...stringEnv(template.env), ...stringEnv(endpoint.env) },
    dockerEntrypoint: template.dockerEntrypoint,
    dockerStartCmd: template.dockerStartCmd,
  } satisfies Partial<WorkerRowInput>;
}

/** The Pod row of a new worker: the endpoint's template, where it was placed and its price. */
function workerRow(endpoint: ScalableEndpoint, placed: WorkerPlacement, now: Date): WorkerRowInput {
  return {
    id: newId(),
    accountId: endpoint.accountId,
    name: `${endpoint.name}-worker`,
    endpointId: endpoint.id,
    slsVersion: endpoint.version,
    computeType: endpoint.computeType,
    gpuTypeIds: endpoint.gpuTypeIds,
    gpuTypePriority: 'custom',
    cpuFlavorIds: endpoint.cpuFlavorIds,
    dataCenterIds: endpoint.dataCenterIds,
    gpuTypeId: placed.gpuTypeId,
    gpuCount: endpoint.computeType === 'GPU' ? endpoint.gpuCount : 0,
    cpuFlavorId: placed.cpuFlavorId,
    vcpuCount: endpoint.vcpuCount,
    memoryInGb: 0,
    dataCenterId: placed.dataCenterId,
    machineId: placed.machineId,
    costPerHr: placed.costPerHr,
    adjustedCostPerHr: placed.costPerHr,
    networkVolumeId: endpoint.networkVolumeId,
    ...templateFields(endpoint),
    lastStartedAt: now,
    lastStatusChange: `Rented by Serverless: ${now.toUTCString()}`,
    lastStatusChangeAt: now,
  };
}

/**
 * Endpoints and their worker Pods, as the autoscaler reads and writes them. The autoscaler serves every account, so
 * reads span accounts; each worker row carries its endpoint's account.
 */
export class ScalingRepository {
  private readonly snapshot: EndpointSnapshot;

  constructor(
    private readonly db: DbClient,
    snapshot: EndpointSnapshotOptions = {},
  ) {
    this.snapshot = new EndpointSnapshot(db, snapshot);
  }

  /** Every endpoint with its template and volume, oldest first (kept between calls; see {@link EndpointSnapshot}). */
  endpoints(): Promise<ScalableEndpoint[]> {
    return this.snapshot.read();
  }

  /** Which of these endpoints are load-balancing ones (their workers serve HTTP themselves). */
  async loadBalancing(endpointIds: string[]): Promise<Set<string>> {
    if (endpointIds.length === 0) return new Set();
    const rows = await this.db.endpoint.findMany({
      where: { id: { in: endpointIds }, type: 'LOAD_BALANCER' },
      select: { id: true },
    });
    return new Set(rows.map((row) => row.id));
  }

  /** Every worker, with only what scaling looks at (passes run on every cluster change: full rows cost too much). */
  workers(): Promise<WorkerRow[]> {
    return this.db.pod.findMany({
      where: { endpointId: { not: null } },
      select: WORKER_SELECT,
      orderBy: { createdAt: 'asc' },
    });
  }

  /** One worker, or null when its row is gone (or the Pod is no worker). */
  worker(id: string): Promise<WorkerRow | null> {
    return this.db.pod.findFirst({ where: { id, endpointId: { not: null } }, select: WORKER_SELECT });
  }

  /** On-demand prices (secure, community) per GPU type and per vCPU-hour per CPU flavor. */
  async prices(): Promise<WorkerPrices> {
    const [gpus, flavors] = await Promise.all([this.db.gpuType.findMany(), this.db.cpuFlavor.findMany()]);
    const money = (value: { toString(): string } | null): number | null =>
      value === null ? null : Number(value.toString());
    return {
      gpu: new Map(
        gpus.map((gpu) => [gpu.id, { secure: money(gpu.securePrice), community: money(gpu.communityPrice) }]),
      ),
      cpu: new Map(flavors.map((flavor) => [flavor.id, money(flavor.pricePerVcpuHr) ?? 0])),
    };
  }

  /**
   * Writes worker Pod rows (inside the placement transaction, so their capacity is booked with them); returns their
   * ids. One statement with the rows as one JSON parameter, typed by the table's own row type: a scale-up of a
   * thousand workers through createMany spends most of its time building the query.
   */
  async createWorkers(
    tx: DbClient,
    endpoint: ScalableEndpoint,
    placements: WorkerPlacement[],
    now: Date,
  ): Promise<string[]> {
    if (placements.length === 0) return [];
    const rows = placements.map((placed) => ({ ...workerRow(endpoint, placed, now), updatedAt: now.toISOString() }));
    const columns = Prisma.raw(
      Object.keys(rows[0] as object)
        .map((column) => `"${column}"`)
        .join(', '),
    );
    await tx.$executeRaw`INSERT INTO "pods" (${columns}) SELECT ${columns} FROM jsonb_populate_recordset(NULL::"pods", ${JSON.stringify(rows)}::jsonb)`;
    return rows.map((row) => row.id);
  }

  async deleteWorker(id: string): Promise<void> {
    await this.db.pod.deleteMany({ where: { id, endpointId: { not: null } } });
  }
}
