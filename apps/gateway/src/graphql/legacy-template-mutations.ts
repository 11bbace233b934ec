import { templateCreateInput } from '@runplane/contracts';
import { parseInput } from '@runplane/http';
import type { TemplatesService } from '@runplane/workloads';
import { splitDockerArgs } from './docker-args';
import type { LegacyContext } from './legacy-context';
import { legacyTemplate } from './legacy-template';

/** `saveTemplate`'s input as runpod-python sends it (inline). */
export interface LegacyTemplateInput {
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

/**
 * `saveTemplate` without an `id`: a new template through the service `/v1/templates` uses. `startSsh` is accepted
 * and changes nothing (templates have no SSH switch; Pods get the account's keys unless their own input says not).
 */
export function templateMutations(templates: TemplatesService) {
  return {
    saveTemplate: async ({ input }: { input: LegacyTemplateInput }, { accountId }: LegacyContext) =>
      legacyTemplate(await templates.create(accountId, templateBody(input))),
  };
}
