import {
  NotFoundError,
  type TemplateCreateInput,
  type TemplateDto,
  type TemplateQuery,
  type TemplateUpdateInput,
  ValidationError,
} from '@runplane/contracts';
import { isUniqueViolation, newId, type Template } from '@runplane/db';
import { inUseMessage } from '../registry-auth/in-use';
import {
  isReadableBy,
  type TemplateChanges,
  type TemplateEnvRow,
  type TemplatesRepository,
} from './templates.repository';

/** How the templates service checks that registry credentials belong to the caller. */
export interface RegistryAuthLookup {
  findById(accountId: string, id: string): Promise<{ id: string } | null>;
}

/** A JSON column holding `{ NAME: "value" }`; anything else reads as no variables. */
function envOf(value: unknown): Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/** Maps a row to the wire; another account's registry auth id is never shown. */
function toDto(row: Template, accountId: string): TemplateDto {
  return {
    id: row.id,
    name: row.name,
    imageName: row.imageName,
    category: row.category,
    containerDiskInGb: row.containerDiskInGb,
    volumeInGb: row.volumeInGb,
    volumeMountPath: row.volumeMountPath,
    ports: [...row.ports],
    env: envOf(row.env),
    dockerEntrypoint: [...row.dockerEntrypoint],
    dockerStartCmd: [...row.dockerStartCmd],
    isPublic: row.isPublic,
    isRunpod: row.isRunpod,
    isServerless: row.isServerless,
    readme: row.readme,
    containerRegistryAuthId: row.accountId === accountId ? row.containerRegistryAuthId : null,
    earned: Number(row.earned),
    runtimeInMin: row.runtimeInMin,
  };
}

/** Fields whose change alters what a worker runs, so endpoints on the template roll to a new version. */
const RUNTIME_FIELDS = [
  'imageName',
  'env',
  'dockerEntrypoint',
  'dockerStartCmd',
  'ports',
  'containerDiskInGb',
  'volumeInGb',
  'volumeMountPath',
  'containerRegistryAuthId',
] as const satisfies readonly (keyof TemplateChanges)[];

/** Templates: private to an account, or public (readable by every account, writable only by the owner). */
export class TemplatesService {
  constructor(
    private readonly templates: TemplatesRepository,
    private readonly registryAuths: RegistryAuthLookup,
  ) {}

  async create(accountId: string, input: TemplateCreateInput): Promise<TemplateDto> {
    const { containerRegistryAuthId, ...fields } = input;
    await this.checkRegistryAuth(accountId, containerRegistryAuthId);
    const row = await this.uniqueName(input.name, () =>
      this.templates.create({
        ...fields,
        id: newId(),
        accountId,
        containerRegistryAuthId: containerRegistryAuthId ?? null,
      }),
    );
    return toDto(row, accountId);
  }

  async list(accountId: string, query: TemplateQuery): Promise<TemplateDto[]> {
    const rows = await this.templates.list(accountId, {
      includePublic: query.includePublicTemplates,
      includeRunpod: query.includeRunpodTemplates,
      includeEndpointBound: query.includeEndpointBoundTemplates,
    });
    return rows.map((row) => toDto(row, accountId));
  }

  /** One template the caller may read: its own, a public one or a platform one. */
  async get(accountId: string, id: string): Promise<TemplateDto> {
    return this.findUsable(accountId, id);
  }

  /** A template the caller may build Pods or endpoints from (own or public); NotFoundError otherwise. */
  async findUsable(accountId: string, id: string): Promise<TemplateDto> {
    const row = await this.templates.findReadable(accountId, id);
    if (!row) throw new NotFoundError('Template');
    return toDto(row, accountId);
  }

  /** The templates of `ids` the caller may use, by id, read at once; one it may not use is not in the map. */
  async findUsableMany(accountId: string, ids: readonly string[]): Promise<Map<string, TemplateDto>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const rows = await this.templates.findReadableMany(accountId, unique);
    return new Map(rows.map((row) => [row.id, toDto(row, accountId)]));
  }

  /**
   * The variables a template brings to what is built from it, from the columns another domain read with its own rows
   * (an endpoint list reads its templates' env in the same query); null when the caller may not use the template.
   */
  usableEnv(accountId: string, row: TemplateEnvRow): Record<string, string> | null {
    return isReadableBy(row, accountId) ? envOf(row.env) : null;
  }

  /** Changes the caller's own template; another account's, even a public one, is not found. */
  async update(accountId: string, id: string, input: TemplateUpdateInput): Promise<TemplateDto> {
    const current = await this.templates.findOwned(accountId, id);
    if (!current) throw new NotFoundError('Template');
    if (input.containerRegistryAuthId) await this.checkRegistryAuth(accountId, input.containerRegistryAuthId);
    const changes: TemplateChanges = { ...input };
    const roll = RUNTIME_FIELDS.some((field) => field in input && input[field] !== undefined);
    const updated = await this.uniqueName(input.name ?? current.name, () =>
      this.templates.update(accountId, id, changes, roll),
    );
    if (!updated) throw new NotFoundError('Template');
    return this.getOwned(accountId, id);
  }

  /** Deletes the caller's template; refused (400, naming them) while a live Pod or an endpoint uses it. */
  async delete(accountId: string, id: string): Promise<void> {
    const outcome = await this.templates.deleteUnused(accountId, id);
    if (outcome.status === 'missing') throw new NotFoundError('Template');
    if (outcome.status === 'in-use') {
      throw new ValidationError(
        inUseMessage('Template', outcome.usage) ?? 'Template is in use; delete or change its users first',
      );
    }
  }

  private async getOwned(accountId: string, id: string): Promise<TemplateDto> {
    const row = await this.templates.findOwned(accountId, id);
    if (!row) throw new NotFoundError('Template');
    return toDto(row, accountId);
  }

  private async checkRegistryAuth(accountId: string, id: string | undefined): Promise<void> {
    if (id === undefined) return;
    if (!(await this.registryAuths.findById(accountId, id))) {
      throw new ValidationError(`containerRegistryAuthId: container registry auth "${id}" not found`);
    }
  }

  /** Template names are unique per account; RunPod answers a duplicate as invalid input. */
  private async uniqueName<T>(name: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (isUniqueViolation(error)) throw new ValidationError(`name: a template named "${name}" already exists`);
      throw error;
    }
  }
}
