import { isDeepStrictEqual } from 'node:util';
import {
  NotFoundError,
  templateCreateInput,
  type TemplateCreateInput,
  type TemplateDto,
  type TemplateUpdateInput,
  ValidationError,
} from '@runplane/contracts';
import { parseInput } from '@runplane/http';
import type { TemplatesService } from '@runplane/workloads';
import { splitDockerArgs } from './docker-args';
import type { LegacyContext } from './legacy-context';
import { legacyTemplate } from './legacy-template';

/** `saveTemplate`'s input as runpod-python sends it (inline). */
export interface LegacyTemplateInput {
  /** The template to replace; absent or null for a new one. */
  id?: string | null;
  name: string;
  imageName: string;
  dockerArgs?: string | null;
  containerDiskInGb?: number | null;
  volumeInGb?: number | null;
  volumeMountPath?: string | null;
  ports?: string | null;
  env?: { key: string; value: string }[] | null;
  isServerless?: boolean | null;
  isPublic?: boolean | null;
  containerRegistryAuthId?: string | null;
  readme?: string | null;
  startSsh?: boolean | null;
}

function defined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined && value !== null));
}

/** The `POST /v1/templates` body, validated as that route validates it (same messages). */
function templateBody(input: LegacyTemplateInput) {
  return parseInput(
    templateCreateInput,
    defined({
      name: input.name,
      imageName: input.imageName,
      dockerStartCmd: input.dockerArgs ? splitDockerArgs(input.dockerArgs) : undefined,
      containerDiskInGb: input.containerDiskInGb,
      volumeInGb: input.volumeInGb,
      volumeMountPath: input.volumeMountPath || undefined,
      // A ports string, even "", is the whole list: "" means none, not the default ports.
      ports:
        typeof input.ports === 'string'
          ? input.ports
              .split(',')
              .map((p) => p.trim())
              .filter((p) => p !== '')
          : undefined,
      env: input.env ? Object.fromEntries(input.env.map(({ key, value }) => [key, value])) : undefined,
      isServerless: input.isServerless,
      isPublic: input.isPublic,
      containerRegistryAuthId: input.containerRegistryAuthId || undefined,
      readme: input.readme,
    }),
  );
}

/** The `PATCH /v1/templates/{id}` body that makes the template what `body` describes: only the fields that differ. */
function replacement(current: TemplateDto, body: TemplateCreateInput): TemplateUpdateInput {
  const wanted: TemplateUpdateInput = {
    name: body.name,
    imageName: body.imageName,
    containerDiskInGb: body.containerDiskInGb,
    volumeInGb: body.volumeInGb,
    volumeMountPath: body.volumeMountPath,
    ports: body.ports,
    env: body.env,
    dockerEntrypoint: body.dockerEntrypoint,
    dockerStartCmd: body.dockerStartCmd,
    isPublic: body.isPublic,
    readme: body.readme,
    containerRegistryAuthId: body.containerRegistryAuthId ?? null,
  };
  const same = (key: keyof TemplateUpdateInput) => isDeepStrictEqual(wanted[key], current[key]);
  return Object.fromEntries(Object.entries(wanted).filter(([key]) => !same(key as keyof TemplateUpdateInput)));
}

/**
 * `saveTemplate` with an `id`: RunPod's full replace of the caller's template, where every setting the input leaves
 * out takes create's default. Only the fields that change are written, so endpoints on the template get a new version
 * exactly when a `PATCH /v1/templates/{id}` with those fields would give them one. isServerless is fixed at creation.
 */
async function replaceTemplate(templates: TemplatesService, accountId: string, id: string, input: LegacyTemplateInput) {
  const body = templateBody(input);
  const own = await templates.list(accountId, {
    includePublicTemplates: false,
    includeRunpodTemplates: false,
    includeEndpointBoundTemplates: true,
  });
  const current = own.find((template) => template.id === id);
  if (!current) throw new NotFoundError('Template');
  if (input.isServerless !== undefined && input.isServerless !== null && input.isServerless !== current.isServerless)
    throw new ValidationError(`isServerless: fixed when the template was created (${current.isServerless})`);
  return templates.update(accountId, id, replacement(current, body));
}

/**
 * `saveTemplate`: without an `id` a new template through the service `/v1/templates` uses, with an `id` a full replace
 * of the caller's template (another account's, even a public one, is not found). `startSsh` is accepted and changes
 * nothing (templates have no SSH switch; Pods get the account's keys unless their own input says not).
 */
export function templateMutations(templates: TemplatesService) {
  return {
    saveTemplate: async ({ input }: { input: LegacyTemplateInput }, { accountId }: LegacyContext) =>
      legacyTemplate(
        input.id === undefined || input.id === null
          ? await templates.create(accountId, templateBody(input))
          : await replaceTemplate(templates, accountId, input.id, input),
      ),
  };
}
