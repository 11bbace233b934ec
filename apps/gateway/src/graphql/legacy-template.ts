import { NotFoundError, type TemplateDto } from '@runplane/contracts';
import type { TemplatesService } from '@runplane/workloads';
import { joinDockerArgs } from './docker-args';

/** `podTemplates(input:)`: runpodctl asks `{isRunpod: true}` (official) and `{isRunpod: false}` (community). */
export interface PodTemplateFilter {
  isRunpod?: boolean | null;
}

/**
 * A template in the shape of RunPod's GraphQL `PodTemplate`: `ports` one comma-separated string, `env` `{key, value}`
 * pairs. Runplane keeps no port labels, so `portsConfig` is empty.
 */
export function legacyTemplate(template: TemplateDto) {
  return {
    id: template.id,
    name: template.name,
    imageName: template.imageName,
    isServerless: template.isServerless,
    isPublic: template.isPublic,
    isRunpod: template.isRunpod,
    category: template.category,
    containerDiskInGb: template.containerDiskInGb,
    volumeInGb: template.volumeInGb,
    volumeMountPath: template.volumeMountPath,
    ports: template.ports.join(','),
    portsConfig: [],
    env: Object.entries(template.env).map(([key, value]) => ({ key, value })),
    containerRegistryAuthId: template.containerRegistryAuthId,
    readme: template.readme,
    dockerArgs: joinDockerArgs(template.dockerStartCmd),
  };
}

/**
 * The template reads: with `isRunpod: true` the catalog's official templates, with `isRunpod: false` the community's
 * public ones (other accounts' and the caller's own), without a filter the caller's own templates.
 */
export async function listTemplates(
  templates: TemplatesService,
  accountId: string,
  filter: PodTemplateFilter | null | undefined,
) {
  const isRunpod = filter?.isRunpod;
  const rows = await templates.list(accountId, {
    includeRunpodTemplates: isRunpod === true,
    includePublicTemplates: isRunpod === false,
    includeEndpointBoundTemplates: false,
  });
  const wanted =
    isRunpod === true
      ? rows.filter((row) => row.isRunpod)
      : isRunpod === false
        ? rows.filter((row) => row.isPublic && !row.isRunpod)
        : rows.filter((row) => !row.isRunpod);
  return wanted.map(legacyTemplate);
}

/** `podTemplate(id:)`: a template the caller may read, or null. */
export async function findTemplate(templates: TemplatesService, accountId: string, id: string) {
  try {
    return legacyTemplate(await templates.get(accountId, id));
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}
