import { type TemplateDto, type TemplateUpdateInput, templateCreateInput } from '@runplane/contracts';
import { type DbClient, newId } from '@runplane/db';
import type { TemplatesService } from '@runplane/workloads';
import { unprocessable } from '../http';
import { splitArgs } from '../shared/command-line';
import type { CreateEndpointRequest, UpdateEndpointRequest } from './serverless.schemas';

/** What a worker runs: the container settings v2 keeps on an endpoint (RunPod's ContainerConfig). */
export interface ContainerSettings {
  imageName: string;
  dockerStartCmd: string[];
  dockerEntrypoint: string[];
  containerDiskInGb: number;
  ports: string[];
  env: Record<string, string>;
  containerRegistryAuthId: string | null;
}

const BOUND_SUFFIX = /__template__[a-z0-9]{8}$/;
/** RunPod's default container disk of an endpoint, GB. */
const DEFAULT_DISK_GB = 20;

/**
 * A template made for one endpoint (named `<endpoint>__template__<8 characters>` as RunPod names them): v2 writes the
 * endpoint's container settings into it, and deleting the endpoint deletes it. Other templates are never changed by
 * an endpoint write: the endpoint moves to a bound template of its own instead.
 */
const named = (template: TemplateDto | null): template is TemplateDto =>
  template !== null && BOUND_SUFFIX.test(template.name);

/** A template's container settings with the endpoint's env (the template's registry shows to its owner only). */
export const settingsOf = (template: TemplateDto, env: Record<string, string>): ContainerSettings => ({
  imageName: template.imageName,
  dockerStartCmd: template.dockerStartCmd,
  dockerEntrypoint: template.dockerEntrypoint,
  containerDiskInGb: template.containerDiskInGb,
  ports: template.ports,
  env,
  containerRegistryAuthId: template.containerRegistryAuthId,
});

const touches = (body: UpdateEndpointRequest): boolean =>
  ['image', 'args', 'disk', 'ports', 'env', 'registry', 'templateId'].some((field) => field in body);

/**
 * The container settings after a body: the body's fields over `base` (the named template, else the current settings),
 * env merged per key with the body's winning when a template is named, replaced by the body's otherwise.
 * Undefined when the body changes nothing a worker runs.
 */
export function applyContainer(
  body: CreateEndpointRequest | UpdateEndpointRequest,
  base: ContainerSettings | null,
): ContainerSettings | undefined {
  if (base !== null && !touches(body)) return undefined;
  const image = body.image ?? base?.imageName;
  if (image === undefined) throw unprocessable(["$: missing property 'image' (or templateId)"]);
  const env = body.templateId !== undefined ? { ...base?.env, ...body.env } : (body.env ?? base?.env ?? {});
  return {
    imageName: image,
    dockerStartCmd: body.args === undefined ? (base?.dockerStartCmd ?? []) : splitArgs(body.args),
    dockerEntrypoint: base?.dockerEntrypoint ?? [],
    containerDiskInGb: body.disk ?? base?.containerDiskInGb ?? DEFAULT_DISK_GB,
    ports: body.ports ?? base?.ports ?? [],
    env,
    containerRegistryAuthId: body.registry === undefined ? (base?.containerRegistryAuthId ?? null) : body.registry,
  };
}

/** The fields of `next` that differ from `current` (only those roll the endpoint to a new version). */
function changes(current: TemplateDto, next: ContainerSettings): TemplateUpdateInput {
  const differs = (a: unknown, b: unknown) => JSON.stringify(a) !== JSON.stringify(b);
  const entries = Object.entries(next).filter(([key, value]) => differs(current[key as keyof TemplateDto], value));
  return Object.fromEntries(entries) as TemplateUpdateInput;
}

/** Creates and updates endpoints' bound templates through the templates service (same names and registry rules). */
export class BoundTemplates {
  constructor(
    private readonly templates: TemplatesService,
    private readonly db: DbClient,
  ) {}

  /** Whether the template is one the account's endpoint owns (see BOUND_SUFFIX). */
  async isBound(accountId: string, template: TemplateDto | null): Promise<boolean> {
    if (!named(template)) return false;
    return (await this.db.template.count({ where: { id: template.id, accountId } })) === 1;
  }

  /** A serverless template the account may use; NotFoundError (404) otherwise, 422 for a Pod template. */
  async usable(accountId: string, id: string): Promise<TemplateDto> {
    const template = await this.templates.findUsable(accountId, id);
    if (!template.isServerless) throw unprocessable([`$.templateId: template ${id} is not a serverless template`]);
    return template;
  }

  async create(
    accountId: string,
    endpointName: string,
    settings: ContainerSettings,
    cpu: boolean,
  ): Promise<TemplateDto> {
    const { containerRegistryAuthId, ...fields } = settings;
    const input = templateCreateInput.parse({
      ...fields,
      name: `${endpointName.slice(0, 160)}__template__${newId(8)}`,
      category: cpu ? 'CPU' : 'NVIDIA',
      volumeInGb: 0,
      isServerless: true,
      ...(containerRegistryAuthId === null ? {} : { containerRegistryAuthId }),
    });
    return this.templates.create(accountId, input);
  }

  /** Writes the changed settings into a bound template (its endpoints get a new version); false when none changed. */
  async update(accountId: string, template: TemplateDto, settings: ContainerSettings): Promise<boolean> {
    const input = changes(template, settings);
    if (Object.keys(input).length === 0) return false;
    await this.templates.update(accountId, template.id, input);
    return true;
  }

  /** Deletes a bound template once its endpoint is gone. */
  async remove(accountId: string, template: TemplateDto | null): Promise<void> {
    if (template !== null && (await this.isBound(accountId, template))) {
      await this.templates.delete(accountId, template.id);
    }
  }
}
