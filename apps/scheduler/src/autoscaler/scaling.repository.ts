import { type DbClient, newId, type Pod, type Prisma } from '@runplane/db';

/** An endpoint with what its workers are made from. */
export type ScalableEndpoint = Prisma.EndpointGetPayload<{ include: { template: true; networkVolume: true } }>;

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
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/** Endpoints and their worker Pods, as the autoscaler reads and writes them. */
export class ScalingRepository {
  constructor(private readonly db: DbClient) {}

  endpoints(): Promise<ScalableEndpoint[]> {
    return this.db.endpoint.findMany({ include: { template: true, networkVolume: true }, orderBy: { createdAt: 'asc' } });
  }

  workers(): Promise<Pod[]> {
    return this.db.pod.findMany({ where: { endpointId: { not: null } }, orderBy: { createdAt: 'asc' } });
  }

  /** On-demand prices (secure, community) per GPU type and per vCPU-hour per CPU flavor. */
  async prices(): Promise<{ gpu: Map<string, { secure: number | null; community: number | null }>; cpu: Map<string, number> }> {
    const [gpus, flavors] = await Promise.all([this.db.gpuType.findMany(), this.db.cpuFlavor.findMany()]);
    const money = (value: { toString(): string } | null): number | null => (value === null ? null : Number(value.toString()));
    return {
      gpu: new Map(gpus.map((gpu) => [gpu.id, { secure: money(gpu.securePrice), community: money(gpu.communityPrice) }])),
      cpu: new Map(flavors.map((flavor) => [flavor.id, money(flavor.pricePerVcpuHr) ?? 0])),
    };
  }

  /** Writes a worker Pod row (inside the placement transaction, so its capacity is booked with it). */
  async createWorker(tx: Prisma.TransactionClient, endpoint: ScalableEndpoint, placed: WorkerPlacement, now: Date): Promise<string> {
    const template = endpoint.template;
    const id = newId();
    await tx.pod.create({
      data: {
        id,
        accountId: endpoint.accountId,
        name: `${endpoint.name}-worker`,
        image: template.imageName,
        templateId: template.id,
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
        containerDiskInGb: template.containerDiskInGb,
        volumeInGb: 0,
        volumeMountPath: template.volumeMountPath,
        networkVolumeId: endpoint.networkVolumeId,
        containerRegistryAuthId: template.containerRegistryAuthId,
        ports: template.ports,
        env: { ...stringEnv(template.env), ...stringEnv(endpoint.env) },
        dockerEntrypoint: template.dockerEntrypoint,
        dockerStartCmd: template.dockerStartCmd,
        lastStartedAt: now,
        lastStatusChange: `Rented by Serverless: ${now.toUTCString()}`,
        lastStatusChangeAt: now,
      },
    });
    return id;
  }

  async deleteWorker(id: string): Promise<void> {
    await this.db.pod.deleteMany({ where: { id, endpointId: { not: null } } });
  }
}
