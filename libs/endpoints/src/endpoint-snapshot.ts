import type { DbClient, Prisma } from '@runplane/db';

/** The endpoint columns a scaling pass uses. */
const ENDPOINT_SELECT = {
  id: true,
  accountId: true,
  name: true,
  templateId: true,
  computeType: true,
  gpuTypeIds: true,
  gpuCount: true,
  cpuFlavorIds: true,
  vcpuCount: true,
  dataCenterIds: true,
  networkVolumeId: true,
  idleTimeout: true,
  scalerType: true,
  scalerValue: true,
  workersMin: true,
  workersMax: true,
  env: true,
  version: true,
  type: true,
  createdAt: true,
} satisfies Prisma.EndpointSelect;

/** What a worker takes from its endpoint's template. */
const TEMPLATE_SELECT = {
  id: true,
  imageName: true,
  containerDiskInGb: true,
  volumeMountPath: true,
  containerRegistryAuthId: true,
  ports: true,
  env: true,
  dockerEntrypoint: true,
  dockerStartCmd: true,
} satisfies Prisma.TemplateSelect;

/** Where a worker of an endpoint with a network volume must be placed. */
const VOLUME_SELECT = { id: true, dataCenterId: true } satisfies Prisma.NetworkVolumeSelect;

type EndpointColumns = Prisma.EndpointGetPayload<{ select: typeof ENDPOINT_SELECT }>;
type TemplateColumns = Prisma.TemplateGetPayload<{ select: typeof TEMPLATE_SELECT }>;
type VolumeColumns = Prisma.NetworkVolumeGetPayload<{ select: typeof VOLUME_SELECT }>;

/** An endpoint with what its workers are made from: its template and its network volume. */
export type ScalableEndpoint = EndpointColumns & { template: TemplateColumns; networkVolume: VolumeColumns | null };

/** The default {@link EndpointSnapshotOptions.marginMs}: rows written this long before a read are read again. */
export const SNAPSHOT_MARGIN_MS = 5_000;

export interface EndpointSnapshotOptions {
  /** The reader's clock (ms). */
  clock?: () => number;
  /**
   * How far before the previous read's start rows are read again. A row's updatedAt is its writer's clock when the
   * write was made, not when it committed: a transaction committed late, or a writer whose clock lags, writes a time
   * the previous read may already be past. Such a row is seen when its lag is under this margin.
   */
  marginMs?: number;
  /** How often every row is read anyway, which bounds how long a write lagging more than the margin goes unseen. */
  fullEveryMs?: number;
}

/**
 * Every endpoint with its template and network volume, kept between reads: a read takes only the rows written since
 * the previous one (updatedAt, less a margin) and the endpoint count, and reads everything again when the count says
 * an endpoint was deleted, and every `fullEveryMs`. Templates and volumes cannot be deleted while an endpoint uses
 * them, so only their changes are read.
 */
export class EndpointSnapshot {
  private readonly endpoints = new Map<string, EndpointColumns>();
  private readonly templates = new Map<string, TemplateColumns>();
  private readonly volumes = new Map<string, VolumeColumns>();
  private list: ScalableEndpoint[] = [];
  private readAt: number | null = null;
  private fullAt = 0;
  private readonly clock: () => number;
  private readonly marginMs: number;
  private readonly fullEveryMs: number;

  constructor(
    private readonly db: DbClient,
    options: EndpointSnapshotOptions = {},
  ) {
    this.clock = options.clock ?? (() => Date.now());
    this.marginMs = options.marginMs ?? SNAPSHOT_MARGIN_MS;
    this.fullEveryMs = options.fullEveryMs ?? 60_000;
  }

  /** Every endpoint, oldest first. */
  async read(): Promise<ScalableEndpoint[]> {
    const started = this.clock();
    if (this.readAt === null || started - this.fullAt >= this.fullEveryMs) return this.full(started);
    const since = new Date(this.readAt - this.marginMs);
    const changedSince = { where: { updatedAt: { gte: since } } };
    const [endpoints, templates, volumes, count] = await Promise.all([
      this.db.endpoint.findMany({ ...changedSince, select: ENDPOINT_SELECT }),
      this.db.template.findMany({ ...changedSince, select: TEMPLATE_SELECT }),
      this.db.networkVolume.findMany({ ...changedSince, select: VOLUME_SELECT }),
      this.db.endpoint.count(),
    ]);
    this.readAt = started;
    if (endpoints.length + templates.length + volumes.length === 0 && count === this.endpoints.size) return this.list;
    for (const endpoint of endpoints) this.endpoints.set(endpoint.id, endpoint);
    // Endpoints added or deleted meanwhile, which no changed row tells apart: read everything.
    if (this.endpoints.size !== count) return this.full(started);
    for (const template of templates) if (this.templates.has(template.id)) this.templates.set(template.id, template);
    for (const volume of volumes) if (this.volumes.has(volume.id)) this.volumes.set(volume.id, volume);
    await this.readMissing();
    this.compose();
    return this.list;
  }

  private async full(started: number): Promise<ScalableEndpoint[]> {
    const endpoints = await this.db.endpoint.findMany({ select: ENDPOINT_SELECT });
    this.endpoints.clear();
    this.templates.clear();
    this.volumes.clear();
    for (const endpoint of endpoints) this.endpoints.set(endpoint.id, endpoint);
    await this.readMissing();
    this.compose();
    this.readAt = started;
    this.fullAt = started;
    return this.list;
  }

  /** Reads the templates and volumes of endpoints that use one not read yet. */
  private async readMissing(): Promise<void> {
    const templateIds = new Set<string>();
    const volumeIds = new Set<string>();
    for (const endpoint of this.endpoints.values()) {
      if (!this.templates.has(endpoint.templateId)) templateIds.add(endpoint.templateId);
      if (endpoint.networkVolumeId !== null && !this.volumes.has(endpoint.networkVolumeId))
        volumeIds.add(endpoint.networkVolumeId);
    }
    const [templates, volumes] = await Promise.all([
      templateIds.size === 0
        ? []
        : this.db.template.findMany({ where: { id: { in: [...templateIds] } }, select: TEMPLATE_SELECT }),
      volumeIds.size === 0
        ? []
        : this.db.networkVolume.findMany({ where: { id: { in: [...volumeIds] } }, select: VOLUME_SELECT }),
    ]);
    for (const template of templates) this.templates.set(template.id, template);
    for (const volume of volumes) this.volumes.set(volume.id, volume);
  }

  /** The endpoints with their template and volume, oldest first (an endpoint whose template was not read is left out). */
  private compose(): void {
    const list: ScalableEndpoint[] = [];
    for (const endpoint of this.endpoints.values()) {
      const template = this.templates.get(endpoint.templateId);
      if (!template) continue;
      const volume = endpoint.networkVolumeId === null ? null : (this.volumes.get(endpoint.networkVolumeId) ?? null);
      list.push({ ...endpoint, template, networkVolume: volume });
    }
    this.list = list.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
  }
}
