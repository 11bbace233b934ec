import { z } from 'zod';
import {
  commandArgs,
  diskGb,
  envMap,
  imageRef,
  mountPath,
  portList,
  queryBoolean,
  refId,
  removableRefId,
  resourceName,
  TEMPLATE_CATEGORIES,
} from './common';

const commandLine = commandArgs(64);
const readme = z.string().max(32_768);

/** Body of `POST /v1/templates` (RunPod's TemplateCreateInput), with RunPod's defaults. */
export const templateCreateInput = z.strictObject({
  name: resourceName,
  imageName: imageRef,
  category: z.enum(TEMPLATE_CATEGORIES).default('NVIDIA'),
  containerDiskInGb: diskGb.default(50),
  volumeInGb: diskGb.default(20),
  volumeMountPath: mountPath.default('/workspace'),
  ports: portList.default(['8888/http', '22/tcp']),
  env: envMap.default({}),
  dockerEntrypoint: commandLine.default([]),
  dockerStartCmd: commandLine.default([]),
  isPublic: z.boolean().default(false),
  isServerless: z.boolean().default(false),
  readme: readme.default(''),
  containerRegistryAuthId: refId.optional(),
});
/** Parsed body of `POST /v1/templates`. */
export type TemplateCreateInput = z.infer<typeof templateCreateInput>;

/**
 * Body of `PATCH /v1/templates/{id}` (RunPod's TemplateUpdateInput): every field optional; category and
 * isServerless are fixed at creation. `containerRegistryAuthId: null` (or `""`) detaches the credentials.
 */
export const templateUpdateInput = z.strictObject({
  name: resourceName.optional(),
  imageName: imageRef.optional(),
  containerDiskInGb: diskGb.optional(),
  volumeInGb: diskGb.optional(),
  volumeMountPath: mountPath.optional(),
  ports: portList.optional(),
  env: envMap.optional(),
  dockerEntrypoint: commandLine.optional(),
  dockerStartCmd: commandLine.optional(),
  isPublic: z.boolean().optional(),
  readme: readme.optional(),
  containerRegistryAuthId: removableRefId.optional(),
});
/** Parsed body of `PATCH /v1/templates/{id}`. */
export type TemplateUpdateInput = z.infer<typeof templateUpdateInput>;

/** Query of `GET /v1/templates` and `GET /v1/templates/{id}`: which templates beyond the caller's own are listed. */
export const templateQuery = z.object({
  includeEndpointBoundTemplates: queryBoolean,
  includePublicTemplates: queryBoolean,
  includeRunpodTemplates: queryBoolean,
});
/** Parsed template list/get query. */
export type TemplateQuery = z.infer<typeof templateQuery>;

/** A template as the v1 API returns it (RunPod's Template). */
export const templateDto = z.object({
  id: z.string(),
  name: z.string(),
  imageName: z.string(),
  category: z.enum(TEMPLATE_CATEGORIES),
  containerDiskInGb: z.number().int(),
  volumeInGb: z.number().int(),
  volumeMountPath: z.string(),
  ports: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  dockerEntrypoint: z.array(z.string()),
  dockerStartCmd: z.array(z.string()),
  isPublic: z.boolean(),
  isRunpod: z.boolean(),
  isServerless: z.boolean(),
  readme: z.string(),
  /** Only shown to the template's owner; null otherwise or when the image is public. */
  containerRegistryAuthId: z.string().nullable(),
  earned: z.number(),
  runtimeInMin: z.number().int(),
});
/** A template as the v1 API returns it. */
export type TemplateDto = z.infer<typeof templateDto>;
