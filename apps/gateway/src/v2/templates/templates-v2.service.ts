import type { TemplateCreateInput, TemplateDto, TemplateUpdateInput } from '@runplane/contracts';
import type { DbClient, Prisma } from '@runplane/db';
import type { TemplatesService } from '@runplane/workloads';
import { type PageQuery, paginate } from '../http/pagination';
import { joinArgs, splitArgs } from '../shared/command-line';
import { withV2FieldNames } from '../shared/field-names';
import type {
  CreateTemplateRequest,
  ListTemplatesResponse,
  TemplateV2,
  UpdateTemplateRequest,
} from './templates.schemas';

/** v1 field names in the domain's messages, as v2 names them. */
const V2_NAMES = {
  imageName: 'image',
  containerDiskInGb: 'disk',
  dockerStartCmd: 'args',
  containerRegistryAuthId: 'registry',
  volumeInGb: 'mounts.persistent.size',
  volumeMountPath: 'mounts.persistent.path',
  isPublic: 'public',
};

/** The columns only v2 shows (v1 templates have their defaults: SSH and Jupyter on, any CUDA version). */
type V2Columns = Pick<TemplateV2, 'startSsh' | 'startJupyter' | 'allowedCudaVersions'>;
const V2_DEFAULTS: V2Columns = { startSsh: true, startJupyter: true, allowedCudaVersions: [] };

function toV2(dto: TemplateDto, columns: V2Columns = V2_DEFAULTS): TemplateV2 {
  return {
    id: dto.id,
    name: dto.name,
    image: dto.imageName,
    args: joinArgs(dto.dockerStartCmd),
    disk: dto.containerDiskInGb,
    mounts: dto.volumeInGb > 0 ? { persistent: { size: dto.volumeInGb, path: dto.volumeMountPath } } : {},
    ports: dto.ports,
    env: dto.env,
    registry: dto.containerRegistryAuthId,
    serverless: dto.isServerless,
    public: dto.isPublic,
    category: dto.category,
    startSsh: columns.startSsh,
    startJupyter: columns.startJupyter,
    allowedCudaVersions: [...columns.allowedCudaVersions],
  };
}

function toV1Create(input: CreateTemplateRequest): TemplateCreateInput {
  const persistent = input.mounts.persistent;
  return {
    name: input.name,
    imageName: input.image,
    category: input.category,
    containerDiskInGb: input.disk,
    volumeInGb: persistent?.size ?? 0,
    volumeMountPath: persistent?.path ?? '/workspace',
    ports: input.ports,
    env: input.env,
    dockerEntrypoint: [],
    dockerStartCmd: splitArgs(input.args),
    isPublic: input.public,
    isServerless: input.serverless,
    readme: '',
    containerRegistryAuthId: input.registry ?? undefined,
  };
}

function toV1Update(input: UpdateTemplateRequest): TemplateUpdateInput {
  return {
    name: input.name,
    imageName: input.image,
    containerDiskInGb: input.disk,
    volumeInGb: input.mounts?.persistent?.size,
    volumeMountPath: input.mounts?.persistent?.path,
    ports: input.ports,
    env: input.env,
    dockerStartCmd: input.args === undefined ? undefined : splitArgs(input.args),
    isPublic: input.public,
    containerRegistryAuthId: input.registry,
  };
}

/** What v1 cannot change on a template: its v2-only settings, and category and kind (fixed in v1, mutable in v2). */
function v2Changes(input: Partial<CreateTemplateRequest>): Prisma.TemplateUpdateManyMutationInput {
  return {
    startSsh: input.startSsh,
    startJupyter: input.startJupyter,
    allowedCudaVersions: input.allowedCudaVersions,
    category: input.category,
    isServerless: input.serverless,
  };
}

/**
 * `/v2/templates` over the same rows and rules as v1's TemplatesService (unique names, registry ownership, refusing to
 * delete a template in use); the v2-only columns are written beside it, on the caller's own row only.
 */
export class TemplatesV2Service {
  constructor(
    private readonly templates: TemplatesService,
    private readonly db: DbClient,
  ) {}

  async create(accountId: string, input: CreateTemplateRequest): Promise<TemplateV2> {
    const created = await withV2FieldNames(V2_NAMES, () => this.templates.create(accountId, toV1Create(input)));
    await this.db.template.updateMany({ where: { id: created.id, accountId }, data: v2Changes(input) });
    return this.get(accountId, created.id);
  }

  async list(accountId: string, page: PageQuery): Promise<ListTemplatesResponse> {
    const own = await this.templates.list(accountId, {
      includePublicTemplates: false,
      includeRunpodTemplates: false,
      includeEndpointBoundTemplates: true,
    });
    const { items, pagination } = paginate(own, page, { list: 'templates', key: (t) => t.id });
    const columns = await this.columns(items.map((t) => t.id));
    return { templates: items.map((t) => toV2(t, columns.get(t.id))), pagination };
  }

  /** A template the caller may read: its own, a public or a platform one. */
  async get(accountId: string, id: string): Promise<TemplateV2> {
    const dto = await this.templates.get(accountId, id);
    return toV2(dto, (await this.columns([id])).get(id));
  }

  /** Changes the caller's own template; another account's, public or not, is not found. */
  async update(accountId: string, id: string, input: UpdateTemplateRequest): Promise<TemplateV2> {
    await withV2FieldNames(V2_NAMES, () => this.templates.update(accountId, id, toV1Update(input)));
    await this.db.template.updateMany({ where: { id, accountId }, data: v2Changes(input) });
    return this.get(accountId, id);
  }

  async delete(accountId: string, id: string): Promise<void> {
    await this.templates.delete(accountId, id);
  }

  private async columns(ids: string[]): Promise<Map<string, V2Columns>> {
    const rows = await this.db.template.findMany({
      where: { id: { in: ids } },
      select: { id: true, startSsh: true, startJupyter: true, allowedCudaVersions: true },
    });
    return new Map(rows.map(({ id, ...columns }) => [id, columns]));
  }
}
