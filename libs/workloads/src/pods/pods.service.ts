import {
  ConflictError,
  DomainError,
  NotFoundError,
  type PodCreateInput,
  type PodDto,
  type PodIncludeQuery,
  type PodListQuery,
  type PodUpdateInput,
  ValidationError,
} from '@runplane/contracts';
import { isForeignKeyViolation, newId, type Prisma } from '@runplane/db';
import { PodCreationPlanner, type PodTemplate, type PodTemplateSource } from './pod-create';
import { applyPodAction, applyPodUpdate, type LifecycleChange, type PodContainerSpec } from './pod-lifecycle';
import { type PodMapContext, stringMap, toPodDto } from './pod.mapper';
import type { PodCatalog, PodGpuType } from './pod-pricing';
import type { PodRepository, PodRow, ShownPodRow } from './pod.repository';
import { type PodPlacementClient, unbookedPlacement } from './pod-placement';

/** Lifecycle actions answered with the Pod (delete answers 204 and has its own method). */
export type PodLifecycleAction = 'start' | 'stop' | 'restart' | 'reset';

function containerOf(row: PodRow): PodContainerSpec {
  return {
    image: row.image,
    dockerEntrypoint: row.dockerEntrypoint,
    dockerStartCmd: row.dockerStartCmd,
    env: stringMap(row.env),
    ports: row.ports,
    containerDiskInGb: row.containerDiskInGb,
    volumeInGb: row.volumeInGb,
    volumeMountPath: row.volumeMountPath,
  };
}

function applyInput(before: PodContainerSpec, input: PodUpdateInput): PodContainerSpec {
  return {
    image: input.imageName ?? before.image,
    dockerEntrypoint: input.dockerEntrypoint ?? before.dockerEntrypoint,
    dockerStartCmd: input.dockerStartCmd ?? before.dockerStartCmd,
    env: input.env ?? before.env,
    ports: input.ports ?? before.ports,
    containerDiskInGb: input.containerDiskInGb ?? before.containerDiskInGb,
    volumeInGb: input.volumeInGb ?? before.volumeInGb,
    volumeMountPath: input.volumeMountPath ?? before.volumeMountPath,
  };
}

function lifecycleData(change: LifecycleChange, now: Date): Prisma.PodUncheckedUpdateManyInput {
  if (change.lastStatusChange === null) return {};
  return {
    desiredStatus: change.desiredStatus,
    generation: change.generation,
    lastStatusChange: change.lastStatusChange,
    lastStatusChangeAt: now,
    ...(change.startedAt ? { lastStartedAt: change.startedAt } : {}),
  };
}

/** Pods: create from an image or a template, list and read with filters and includes, update, lifecycle. */
export class PodsService {
  private readonly planner: PodCreationPlanner;

  constructor(
    private readonly pods: PodRepository,
    private readonly catalog: PodCatalog,
    private readonly templates: PodTemplateSource,
    private readonly clock: () => Date = () => new Date(),
    placement: PodPlacementClient = unbookedPlacement,
  ) {
    this.planner = new PodCreationPlanner(pods, catalog, templates, placement);
  }

  /**
   * Creates a Pod. As on RunPod, the account's SSH keys reach it in PUBLIC_KEY unless its env sets one, its template
   * turns SSH off, or `options.sshKeys` is false (v2's `startSsh: false`).
   */
  async create(accountId: string, input: PodCreateInput, options: { sshKeys?: boolean } = {}): Promise<PodDto> {
    const data = await this.planner.plan(accountId, newId(), input, this.clock());
    const env = stringMap(data.env);
    const wanted = options.sshKeys !== false && env.PUBLIC_KEY === undefined;
    const publicKey = wanted ? await this.pods.sshPublicKeys(accountId, input.templateId) : undefined;
    if (publicKey !== undefined) data.env = { ...env, PUBLIC_KEY: publicKey };
    let row: PodRow;
    try {
      row = await this.pods.create(data);
    } catch (error) {
      // A referenced volume, template or registry auth deleted between the checks and the insert.
      if (isForeignKeyViolation(error))
        throw new ConflictError('A resource the Pod refers to was deleted meanwhile; retry');
      throw error;
    }
    return (await this.toDtos([row], {}))[0] as PodDto;
  }

  /** The caller's Pods; a machine or network volume is read only when the query includes it. */
  async list(accountId: string, query: PodListQuery): Promise<PodDto[]> {
    const relations = { machine: query.includeMachine, networkVolume: query.includeNetworkVolume };
    const filter = {
      id: query.id,
      name: query.name,
      image: query.imageName,
      computeType: query.computeType,
      desiredStatus: query.desiredStatus,
      gpuTypeIds: query.gpuTypeId,
      cpuFlavorIds: query.cpuFlavorId,
      dataCenterIds: query.dataCenterId,
      endpointId: query.endpointId,
      networkVolumeId: query.networkVolumeId,
      templateId: query.templateId,
      includeWorkers: query.includeWorkers,
    };
    return this.toDtos(await this.pods.list(accountId, filter, relations), query);
  }

  async get(accountId: string, id: string, include: Partial<PodIncludeQuery> = {}): Promise<PodDto> {
    const relations = {
      machine: include.includeMachine === true,
      networkVolume: include.includeNetworkVolume === true,
    };
    const row = await this.pods.findShown(accountId, id, relations);
    // Serverless workers are only visible when asked for, as in listings.
    if (!row || (row.endpointId !== null && include.includeWorkers !== true)) throw new NotFoundError('Pod');
    return (await this.toDtos([row], include))[0] as PodDto;
  }

  async update(accountId: string, id: string, input: PodUpdateInput): Promise<PodDto> {
    const row = await this.requireOwnPod(accountId, id);
    if (
      input.containerRegistryAuthId &&
      !(await this.pods.ownsRegistryAuth(accountId, input.containerRegistryAuthId))
    ) {
      throw new NotFoundError('Container registry auth');
    }
    const now = this.clock();
    const before = containerOf(row);
    const after = applyInput(before, input);
    // Unlocking in the same request permits the reset the other changes need.
    const locked = row.locked && input.locked !== false;
    const change = applyPodUpdate(
      { desiredStatus: row.desiredStatus, locked, generation: row.generation },
      before,
      after,
      now,
    );
    await this.write(row, {
      ...(input.name === undefined ? {} : { name: input.name }),
      ...after,
      env: after.env,
      ...(input.locked === undefined ? {} : { locked: input.locked }),
      ...(input.globalNetworking === undefined ? {} : { globalNetworking: input.globalNetworking }),
      ...(input.containerRegistryAuthId === undefined
        ? {}
        : { containerRegistryAuthId: input.containerRegistryAuthId }),
      ...lifecycleData(change, now),
    });
    return this.get(accountId, id);
  }

  /** start, stop, restart or reset; answers the Pod as it is afterwards. */
  async act(accountId: string, id: string, action: PodLifecycleAction): Promise<PodDto> {
    const row = await this.requireOwnPod(accountId, id);
    const now = this.clock();
    const change = applyPodAction(row, action, now);
    const data = lifecycleData(change, now);
    if (Object.keys(data).length > 0) await this.write(row, data);
    return this.get(accountId, id);
  }

  /**
   * Deletes the Pod row; the scheduler removes cluster objects whose Pod row is gone, so nothing is left behind.
   * The lifecycle check runs first so a terminated Pod answers like any other.
   */
  async delete(accountId: string, id: string): Promise<void> {
    const row = await this.requireOwnPod(accountId, id);
    applyPodAction(row, 'delete', this.clock());
    if (!(await this.pods.delete(accountId, id))) throw new NotFoundError('Pod');
  }

  /** The caller's Pod (no serverless worker) as a change reads it: the row and its savings plans. */
  private async requireOwnPod(accountId: string, id: string): Promise<PodRow> {
    const row = await this.pods.findById(accountId, id, { machine: false, networkVolume: false });
    if (!row) throw new NotFoundError('Pod');
    if (row.endpointId !== null) {
      throw new ValidationError(
        `podId: the Pod is a serverless worker of endpoint ${row.endpointId}; manage it through the endpoint`,
      );
    }
    return row;
  }

  private async write(row: PodRow, data: Prisma.PodUncheckedUpdateManyInput): Promise<void> {
    if (!(await this.pods.updateIfUnchanged(row.accountId, row.id, row.updatedAt, data))) {
      throw new ConflictError('The Pod changed while this request was handled; retry it');
    }
  }

  private async toDtos(rows: ShownPodRow[], include: Partial<PodIncludeQuery>): Promise<PodDto[]> {
    const now = this.clock();
    const gpuTypes = await this.gpuTypesOf(rows, include.includeMachine === true);
    const context: PodMapContext = {
      gpuTypes,
      now,
      include: {
        includeMachine: include.includeMachine === true,
        includeNetworkVolume: include.includeNetworkVolume === true,
        includeSavingsPlans: include.includeSavingsPlans === true,
      },
    };
    const templates = include.includeTemplate === true ? await this.templatesOf(rows) : null;
    return rows.map((row) => {
      const dto = toPodDto(row, context);
      if (templates) dto.template = row.templateId === null ? null : (templates.get(row.templateId) ?? null);
      return dto;
    });
  }

  /** The catalog's GPU types these Pods (and their machines, when shown) name: none, one, or the whole catalog. */
  private async gpuTypesOf(rows: ShownPodRow[], machines: boolean): Promise<Map<string, PodGpuType>> {
    const ids = new Set<string>();
    for (const row of rows) {
      if (row.gpuTypeId !== null) ids.add(row.gpuTypeId);
      if (machines && row.machine?.gpuTypeId) ids.add(row.machine.gpuTypeId);
    }
    if (ids.size === 0) return new Map();
    if (ids.size === 1) {
      const gpu = await this.catalog.findGpuType([...ids][0] as string);
      return new Map(gpu ? [[gpu.id, gpu]] : []);
    }
    return new Map((await this.catalog.listGpuTypes()).map((gpu) => [gpu.id, gpu]));
  }

  /** The templates of these Pods that the caller can still see (a template may have turned private). */
  private async templatesOf(rows: ShownPodRow[]): Promise<Map<string, Record<string, unknown>>> {
    const found = new Map<string, Record<string, unknown>>();
    const ids = new Set(rows.flatMap((row) => (row.templateId === null ? [] : [row.templateId])));
    for (const id of ids) {
      const template = await this.findTemplate(rows[0]?.accountId ?? '', id);
      if (template) found.set(id, { ...template });
    }
    return found;
  }

  private async findTemplate(accountId: string, id: string): Promise<PodTemplate | null> {
    try {
      return await this.templates.findUsable(accountId, id);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'NOT_FOUND') return null;
      throw error;
    }
  }
}
