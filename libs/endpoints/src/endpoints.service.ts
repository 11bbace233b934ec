import {
  ConflictError,
  type EndpointCreateInput,
  type EndpointDto,
  type EndpointQuery,
  type EndpointUpdateInput,
  NotFoundError,
  type TemplateDto,
  ValidationError,
} from '@runplane/contracts';
import { type Endpoint, isForeignKeyViolation } from '@runplane/db';
import { newEndpointId } from './endpoint-id';
import { checkWorkerBounds, type EndpointShapeChecker, requestedVolumeIds } from './endpoint-shape';
import { toEndpointDto } from './endpoint-dto';
import type { EndpointConfig, EndpointPosition, EndpointsRepository, ShownEndpoint } from './endpoints.repository';
import type { EndpointRuntimeData, EndpointTemplateSource, EndpointWorkerSource } from './ports';

/** Defaults of RunPod's EndpointCreateInput that the service applies. */
const DEFAULTS = {
  executionTimeoutMs: 600_000,
  gpuCount: 1,
  idleTimeout: 5,
  scalerType: 'QUEUE_DELAY',
  scalerValue: 4,
  vcpuCount: 2,
  workersMin: 0,
  workersMax: 3,
} as const;

/** Runs a write; a template or volume deleted between the checks and the write answers 409, not 500. */
async function referencesKept<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isForeignKeyViolation(error))
      throw new ConflictError('A template or network volume the endpoint refers to was deleted meanwhile; retry');
    throw error;
  }
}

/** Serverless endpoints: validated configuration, a version that follows template changes, optional includes. */
export class EndpointsService {
  constructor(
    private readonly endpoints: EndpointsRepository,
    private readonly shape: EndpointShapeChecker,
    private readonly templates: EndpointTemplateSource,
    private readonly workers: EndpointWorkerSource,
    private readonly runtime: EndpointRuntimeData,
  ) {}

  async create(accountId: string, input: EndpointCreateInput): Promise<EndpointDto> {
    const template = await this.usableTemplate(accountId, input.templateId);
    const config = await this.newConfig(accountId, input, template);
    const row = await referencesKept(() => this.endpoints.create({ ...config, id: newEndpointId(), accountId }));
    return toEndpointDto(row, template.env);
  }

  async list(accountId: string, query: EndpointQuery): Promise<EndpointDto[]> {
    return this.withIncludes(accountId, await this.endpoints.listByAccount(accountId), query);
  }

  /** One page of the account's endpoints, oldest first (see {@link EndpointsRepository.pageByAccount}). */
  async listPage(
    accountId: string,
    page: { after: EndpointPosition | undefined; take: number },
    query: EndpointQuery,
  ): Promise<EndpointDto[]> {
    return this.withIncludes(accountId, await this.endpoints.pageByAccount(accountId, page.after, page.take), query);
  }

  async get(accountId: string, id: string, query: EndpointQuery): Promise<EndpointDto> {
    const row = await this.endpoints.findShown(accountId, id);
    const [dto] = row ? await this.withIncludes(accountId, [row], query) : [];
    if (!dto) throw new NotFoundError('Endpoint');
    return dto;
  }

  /** Applies a partial configuration; a new template bumps the version (template edits bump it too, in workloads). */
  async update(accountId: string, id: string, input: EndpointUpdateInput): Promise<EndpointDto> {
    const row = await this.require(accountId, id);
    const changes = await this.changedConfig(accountId, row, input);
    const newTemplateId =
      input.templateId !== undefined && input.templateId !== row.templateId ? input.templateId : null;
    const template =
      newTemplateId === null
        ? await this.templates.findUsable(accountId, row.templateId)
        : await this.usableTemplate(accountId, newTemplateId);
    // A new type changes what workers run (PORT and PORT_HEALTH, or none): a new version, as a new template.
    const bump = newTemplateId !== null || (input.type !== undefined && input.type !== row.type);
    const updated = await referencesKept(() => this.endpoints.update(accountId, id, changes, bump));
    if (!updated) throw new NotFoundError('Endpoint');
    return toEndpointDto(updated, template?.env);
  }

  /**
   * Replaces the endpoint's configuration with a create body's: what the body omits takes create's defaults, checked
   * as create checks them. The compute type, the endpoint type, the name when omitted and the endpoint's own env stay;
   * the version follows the rule of update (a new template bumps it).
   */
  async replace(accountId: string, id: string, input: EndpointCreateInput): Promise<EndpointDto> {
    const row = await this.require(accountId, id);
    const template = await this.usableTemplate(accountId, input.templateId);
    // The type stays too: GraphQL's saveEndpoint (the caller) has no such field.
    const {
      env: _env,
      type: _type,
      ...config
    } = await this.newConfig(
      accountId,
      { ...input, computeType: row.computeType, name: input.name ?? row.name },
      template,
    );
    const bump = template.id !== row.templateId;
    const updated = await referencesKept(() => this.endpoints.update(accountId, id, config, bump));
    if (!updated) throw new NotFoundError('Endpoint');
    return toEndpointDto(updated, template?.env);
  }

  /**
   * Removes the endpoint's configuration and its worker Pod rows, then its queue and jobs. The row goes first, so
   * no job-router finds the endpoint any more (after its endpoint cache, 5 s) while its jobs are being removed.
   * Should the purge fail (Redis unreachable), the error is the answer and the jobs expire by their own ttl.
   */
  async delete(accountId: string, id: string): Promise<void> {
    if (!(await this.endpoints.deleteWithWorkers(accountId, id))) throw new NotFoundError('Endpoint');
    await this.runtime.purge(id);
  }

  /**
   * A new endpoint's GPUs or CPUs, checked against the catalog. GPU endpoints ignore CPU fields and CPU endpoints GPU
   * types, as RunPod documents.
   */
  private async newCompute(input: EndpointCreateInput) {
    const gpuCount = input.gpuCount ?? DEFAULTS.gpuCount;
    const vcpuCount = input.vcpuCount ?? DEFAULTS.vcpuCount;
    const gpuTypeIds = input.computeType === 'GPU' ? (input.gpuTypeIds ?? []) : [];
    await this.shape.checkGpus(gpuTypeIds, gpuCount);
    const cpu =
      input.computeType === 'CPU'
        ? await this.shape.resolveCpu(input.cpuFlavorIds, vcpuCount)
        : { cpuFlavorIds: [], vcpuCount, instanceIds: [] };
    return { gpuTypeIds, gpuCount, ...cpu };
  }

  /** A full configuration from a create body: RunPod's defaults, checked against the catalog and volumes. */
  private async newConfig(
    accountId: string,
    input: EndpointCreateInput,
    template: TemplateDto,
  ): Promise<EndpointConfig> {
    const workersMin = input.workersMin ?? DEFAULTS.workersMin;
    const workersMax = input.workersMax ?? Math.max(DEFAULTS.workersMax, workersMin);
    checkWorkerBounds(workersMin, workersMax);
    const compute = await this.newCompute(input);
    const placement = await this.shape.resolvePlacement(
      accountId,
      input.dataCenterIds,
      requestedVolumeIds(input) ?? [],
    );
    return {
      name: input.name ?? template.name,
      templateId: template.id,
      env: {},
      computeType: input.computeType,
      ...compute,
      dataCenterIds: placement.dataCenterIds,
      networkVolumeId: placement.networkVolumeIds[0] ?? null,
      networkVolumeIds: placement.networkVolumeIds,
      allowedCudaVersions: input.allowedCudaVersions ?? [],
      minCudaVersion: input.minCudaVersion ?? null,
      executionTimeoutMs: input.executionTimeoutMs ?? DEFAULTS.executionTimeoutMs,
      idleTimeout: input.idleTimeout ?? DEFAULTS.idleTimeout,
      scalerType: input.scalerType ?? DEFAULTS.scalerType,
      scalerValue: input.scalerValue ?? DEFAULTS.scalerValue,
      workersMin,
      workersMax,
      flashboot: input.flashboot ?? false,
      type: input.type ?? 'QUEUE',
    };
  }

  private async changedConfig(
    accountId: string,
    row: Endpoint,
    input: EndpointUpdateInput,
  ): Promise<Partial<EndpointConfig>> {
    const { networkVolumeId: _id, networkVolumeIds: _ids, dataCenterIds: _dcs, cpuFlavorIds: _cpus, ...plain } = input;
    const changes: Partial<EndpointConfig> = { ...plain };
    checkWorkerBounds(input.workersMin ?? row.workersMin, input.workersMax ?? row.workersMax);
    if (row.computeType === 'GPU' && (input.gpuTypeIds !== undefined || input.gpuCount !== undefined)) {
      await this.shape.checkGpus(input.gpuTypeIds ?? row.gpuTypeIds, input.gpuCount ?? row.gpuCount);
    }
    if (row.computeType === 'CPU') {
      delete changes.gpuTypeIds;
      if (input.cpuFlavorIds !== undefined || input.vcpuCount !== undefined) {
        Object.assign(
          changes,
          await this.shape.resolveCpu(input.cpuFlavorIds ?? row.cpuFlavorIds, input.vcpuCount ?? row.vcpuCount),
        );
      }
    }
    const volumeIds = requestedVolumeIds(input);
    if (volumeIds !== undefined || input.dataCenterIds !== undefined) {
      const placement = await this.shape.resolvePlacement(
        accountId,
        input.dataCenterIds ?? row.dataCenterIds,
        volumeIds ?? row.networkVolumeIds,
      );
      changes.dataCenterIds = placement.dataCenterIds;
      changes.networkVolumeIds = placement.networkVolumeIds;
      changes.networkVolumeId = placement.networkVolumeIds[0] ?? null;
    }
    return changes;
  }

  /** The endpoints' answers; their templates' env came with them in the same read. */
  private async withIncludes(accountId: string, rows: ShownEndpoint[], query: EndpointQuery): Promise<EndpointDto[]> {
    const dtos = rows.map((row) => toEndpointDto(row, this.templates.usableEnv(accountId, row.template)));
    if (query.includeTemplate && rows.length > 0) {
      // Every endpoint's template in one read, however many endpoints the page has.
      const templates = await this.templates.findUsableMany(
        accountId,
        rows.map((row) => row.templateId),
      );
      dtos.forEach((dto) => {
        const template = templates.get(dto.templateId);
        if (template) dto.template = template;
      });
    }
    if (query.includeWorkers && dtos.length > 0) {
      const [workers, states] = await Promise.all([
        this.workers.listWorkers(
          accountId,
          dtos.map((dto) => dto.id),
        ),
        Promise.all(dtos.map((dto) => this.runtime.workerStates(dto.id))),
      ]);
      dtos.forEach((dto, index) => {
        dto.workers = workers.filter((pod) => pod.endpointId === dto.id);
        // Why jobs wait: workers still starting, crashed (unhealthy) or refused for want of capacity (throttled).
        dto.workerStates = states[index]?.workers ?? [];
        const waiting = states[index]?.waiting;
        if (waiting) dto.waitingReason = waiting;
      });
    }
    return dtos;
  }

  /** A template named in a body must be usable by the account: otherwise a 400 on templateId. */
  private async usableTemplate(accountId: string, templateId: string): Promise<TemplateDto> {
    const template = await this.templates.findUsable(accountId, templateId);
    if (!template) throw new ValidationError(`templateId: template ${templateId} not found`);
    return template;
  }

  private async require(accountId: string, id: string): Promise<Endpoint> {
    const row = await this.endpoints.findById(accountId, id);
    if (!row) throw new NotFoundError('Endpoint');
    return row;
  }
}
