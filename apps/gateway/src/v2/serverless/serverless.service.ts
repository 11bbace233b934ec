import type { CatalogRepository } from '@runplane/catalog';
import { CUDA_VERSIONS, type EndpointDto, NotFoundError, ValidationError } from '@runplane/contracts';
import type { DbClient } from '@runplane/db';
import type { EndpointsService } from '@runplane/endpoints';
import { type PageQuery, pageByCreation } from '../http/pagination';
import { applyContainer, BoundTemplates, type ContainerSettings, settingsOf } from './bound-template';
import { checkShape, cpuFields, type EndpointFields, gpuFields, plainFields } from './endpoint-compute';
import { endpointView, type RequestUrlBases } from './endpoint-view';
import { readPools } from './pools';
import type {
  CreateEndpointRequest,
  EndpointView,
  ListEndpointsResponse,
  UpdateEndpointRequest,
} from './serverless.schemas';
import { inV2Terms } from './v2-field-names';

type EndpointType = 'QUEUE' | 'LOAD_BALANCER';

/** What the v2 serverless service works over: v1's endpoints service (same rows and rules) and the catalog. */
export interface ServerlessDependencies {
  endpoints: EndpointsService;
  boundTemplates: BoundTemplates;
  catalog: CatalogRepository;
  db: DbClient;
  /** Public URLs of this installation's job API and load-balancing endpoints (requestUrls). */
  urls: RequestUrlBases;
}

/** RunPod's create defaults where they differ from v1's. */
const V2_DEFAULTS = { idleTimeout: 10, executionTimeoutMs: 300_000 };

const WITH_TEMPLATE = { includeTemplate: true, includeWorkers: false };

/**
 * `/v2/serverless`: the same endpoint rows as `/v1/endpoints`. A v2 endpoint carries its container settings inline;
 * they live in a template bound to the endpoint (created with it, updated in place, deleted with it), so v1 sees a
 * normal endpoint on a template and a template edit rolls the endpoint to a new version (a release).
 */
export class ServerlessV2Service {
  constructor(private readonly deps: ServerlessDependencies) {}

  /** One page of the account's endpoints, oldest first, read from the database a page at a time. */
  async list(accountId: string, page: PageQuery): Promise<ListEndpointsResponse> {
    const { items, pagination } = await pageByCreation(page, 'serverless', (after, take) =>
      this.deps.endpoints.listPage(accountId, { after, take }, WITH_TEMPLATE),
    );
    return { endpoints: await this.views(accountId, items), pagination };
  }

  async get(accountId: string, id: string): Promise<EndpointView> {
    const [view] = await this.views(accountId, [await this.deps.endpoints.get(accountId, id, WITH_TEMPLATE)]);
    if (!view) throw new NotFoundError('Endpoint');
    return view;
  }

  async create(accountId: string, body: CreateEndpointRequest): Promise<EndpointView> {
    checkShape(body, { type: body.type });
    const compute = { ...(await this.templateCuda(body)), ...(await this.computeFields(body)) };
    const base = body.templateId === undefined ? null : await this.templateSettings(accountId, body.templateId);
    const settings = applyContainer(body, base) as ContainerSettings;
    await this.checkRegistry(accountId, settings.containerRegistryAuthId);
    const template = await this.deps.boundTemplates.create(accountId, body.name, settings, body.cpu !== undefined);
    const requestCount = body.scaling.type === 'REQUEST_COUNT' && body.type === 'QUEUE';
    const fields: EndpointFields = {
      idleTimeout: requestCount ? undefined : V2_DEFAULTS.idleTimeout,
      executionTimeoutMs: V2_DEFAULTS.executionTimeoutMs,
      ...plainFields(body),
      ...compute,
    };
    try {
      const dto = await inV2Terms(() =>
        this.deps.endpoints.create(accountId, {
          ...fields,
          templateId: template.id,
          computeType: body.cpu === undefined ? 'GPU' : 'CPU',
          type: body.type,
        }),
      );
      return await this.get(accountId, dto.id);
    } catch (error) {
      await this.deps.boundTemplates.remove(accountId, template);
      throw error;
    }
  }

  async update(accountId: string, id: string, body: UpdateEndpointRequest): Promise<EndpointView> {
    const current = await this.deps.endpoints.get(accountId, id, WITH_TEMPLATE);
    checkShape(body, { type: await this.typeOf(accountId, id), dto: current });
    const fields: EndpointFields & { templateId?: string } = {
      ...plainFields(body),
      ...(await this.computeFields(body)),
    };
    const template = current.template ?? null;
    const base =
      body.templateId !== undefined
        ? await this.templateSettings(accountId, body.templateId)
        : template && settingsOf(template, current.env);
    const settings = applyContainer(body, base);
    if (settings) await this.checkRegistry(accountId, settings.containerRegistryAuthId);
    const inPlace =
      settings !== undefined && template !== null && (await this.deps.boundTemplates.isBound(accountId, template));
    const created =
      settings && !inPlace
        ? await this.deps.boundTemplates.create(
            accountId,
            body.name ?? current.name,
            settings,
            current.computeType === 'CPU',
          )
        : null;
    if (created) fields.templateId = created.id;
    try {
      if (Object.keys(fields).length > 0) await inV2Terms(() => this.deps.endpoints.update(accountId, id, fields));
    } catch (error) {
      if (created) await this.deps.boundTemplates.remove(accountId, created);
      throw error;
    }
    if (inPlace && settings && template)
      await inV2Terms(() => this.deps.boundTemplates.update(accountId, template, settings));
    if (created) await this.deps.boundTemplates.remove(accountId, template);
    return this.get(accountId, id);
  }

  /** Deletes the endpoint (its workers and jobs, as v1 does) and then its bound template. */
  async delete(accountId: string, id: string): Promise<void> {
    const current = await this.deps.endpoints.get(accountId, id, WITH_TEMPLATE);
    await this.deps.endpoints.delete(accountId, id);
    await this.deps.boundTemplates.remove(accountId, current.template ?? null);
  }

  private async computeFields(body: CreateEndpointRequest | UpdateEndpointRequest): Promise<EndpointFields> {
    if (body.gpu !== undefined) return gpuFields(body.gpu, await readPools(this.deps.catalog));
    return body.cpu === undefined ? {} : cpuFields(body.cpu);
  }

  /**
   * A GPU endpoint created from a template without CUDA constraints of its own takes the template's
   * allowedCudaVersions (not beside a minCudaVersion, which would make the pair contradict).
   */
  private async templateCuda(body: CreateEndpointRequest): Promise<EndpointFields> {
    const gpu = body.gpu;
    if (body.templateId === undefined || !gpu || gpu.allowedCudaVersions || gpu.minCudaVersion) return {};
    const row = await this.deps.db.template.findUnique({
      where: { id: body.templateId },
      select: { allowedCudaVersions: true },
    });
    const known = (row?.allowedCudaVersions ?? []).filter((v): v is (typeof CUDA_VERSIONS)[number] =>
      (CUDA_VERSIONS as readonly string[]).includes(v),
    );
    return known.length > 0 ? { allowedCudaVersions: known } : {};
  }

  private async templateSettings(accountId: string, templateId: string): Promise<ContainerSettings> {
    const template = await this.deps.boundTemplates.usable(accountId, templateId);
    return settingsOf(template, template.env);
  }

  /** A registry credential must be the account's (checked before anything is written). */
  private async checkRegistry(accountId: string, id: string | null): Promise<void> {
    if (id === null) return;
    if ((await this.deps.db.containerRegistryAuth.count({ where: { id, accountId } })) === 0) {
      throw new ValidationError(`registry: container registry credential ${id} not found`);
    }
  }

  private async typeOf(accountId: string, id: string): Promise<EndpointType> {
    const row = await this.deps.db.endpoint.findFirst({ where: { id, accountId }, select: { type: true } });
    if (!row) throw new NotFoundError('Endpoint');
    return row.type;
  }

  private async views(accountId: string, dtos: EndpointDto[]): Promise<EndpointView[]> {
    const ids = dtos.map((dto) => dto.id);
    const [rows, pools] = await Promise.all([
      this.deps.db.endpoint.findMany({ where: { accountId, id: { in: ids } }, select: { id: true, type: true } }),
      readPools(this.deps.catalog),
    ]);
    const types = new Map(rows.map((row) => [row.id, row.type]));
    return dtos.map((dto) =>
      endpointView({
        dto,
        template: dto.template ?? null,
        type: types.get(dto.id) ?? 'QUEUE',
        pools,
        urls: this.deps.urls,
      }),
    );
  }
}
