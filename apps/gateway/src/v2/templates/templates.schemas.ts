import {
  diskGb,
  envMap,
  imageRef,
  mountPath,
  portList,
  refId,
  removableRefId,
  resourceName,
  TEMPLATE_CATEGORIES,
} from '@runplane/contracts';
import { z } from 'zod';
import { listResponseSchema } from '../http/pagination';

const cudaVersion = z.string().regex(/^\d+\.\d+$/, 'must be major.minor, e.g. 12.8');
const args = z.string().max(32_768);
const disk = diskGb.min(1);

/** A template's host-local volume (RunPod's PersistentMount); v1's `volumeInGb` and `volumeMountPath`. */
const persistentMount = z.strictObject({ size: diskGb.min(10), path: mountPath });
/** Templates carry at most a persistent mount (RunPod's TemplateMounts); `{}` changes nothing on PATCH. */
const templateMounts = z.strictObject({ persistent: persistentMount.optional() });

/** Body of `POST /v2/templates` (RunPod's CreateTemplateRequest), with its defaults. */
export const createTemplateRequest = z.strictObject({
  name: resourceName,
  image: imageRef,
  args: args.default(''),
  disk: disk.default(50),
  env: envMap.default({}),
  ports: portList.default([]),
  registry: refId.nullable().optional(),
  allowedCudaVersions: z.array(cudaVersion).max(32).default([]),
  category: z.enum(TEMPLATE_CATEGORIES).default('NVIDIA'),
  mounts: templateMounts.default({}),
  public: z.boolean().default(false),
  serverless: z.boolean().default(false),
  startJupyter: z.boolean().default(true),
  startSsh: z.boolean().default(true),
});
/** Parsed body of `POST /v2/templates`. */
export type CreateTemplateRequest = z.infer<typeof createTemplateRequest>;

/** Body of `PATCH /v2/templates/{id}` (RunPod's UpdateTemplateRequest): only the fields sent change. */
export const updateTemplateRequest = z.strictObject({
  name: resourceName.optional(),
  image: imageRef.optional(),
  args: args.optional(),
  disk: disk.optional(),
  env: envMap.optional(),
  ports: portList.optional(),
  registry: removableRefId.optional(),
  allowedCudaVersions: z.array(cudaVersion).max(32).optional(),
  category: z.enum(TEMPLATE_CATEGORIES).optional(),
  mounts: templateMounts.optional(),
  public: z.boolean().optional(),
  serverless: z.boolean().optional(),
  startJupyter: z.boolean().optional(),
  startSsh: z.boolean().optional(),
});
/** Parsed body of `PATCH /v2/templates/{id}`. */
export type UpdateTemplateRequest = z.infer<typeof updateTemplateRequest>;

/** A template as v2 returns it (RunPod's Template), over the same row as v1's. */
export const templateSchema = z.object({
  id: z.string(),
  name: z.string(),
  image: z.string(),
  args: z.string(),
  disk: z.number().int(),
  mounts: z.object({ persistent: z.object({ size: z.number().int(), path: z.string() }).optional() }),
  ports: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  /** Only shown to the template's owner. */
  registry: z.string().nullable(),
  serverless: z.boolean(),
  public: z.boolean(),
  category: z.enum(TEMPLATE_CATEGORIES),
  startSsh: z.boolean(),
  startJupyter: z.boolean(),
  allowedCudaVersions: z.array(z.string()),
});
/** A template as v2 returns it. */
export type TemplateV2 = z.infer<typeof templateSchema>;

/** `GET /v2/templates`: the caller's own templates, a page at a time. */
export const listTemplatesResponse = listResponseSchema('templates', templateSchema);
/** A page of templates. */
export type ListTemplatesResponse = z.infer<typeof listTemplatesResponse>;
