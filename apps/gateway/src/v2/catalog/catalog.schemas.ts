import { queryInt } from '@runplane/contracts';
import { z } from 'zod';
import { templateSchema } from '../templates/templates.schemas';

/** A comma-separated query list (`?include=A,B`; a repeated key works too), each entry checked by `item`. */
export function commaList<T extends z.ZodType>(item: T) {
  return z.preprocess((value) => {
    if (value === undefined) return undefined;
    const parts = (Array.isArray(value) ? value : [value]).flatMap((part) => String(part).split(','));
    return parts.map((part) => part.trim()).filter((part) => part !== '');
  }, z.array(item));
}

export const AVAILABILITY = ['NONE', 'LOW', 'MEDIUM', 'HIGH'] as const;
const availability = z.enum(AVAILABILITY);
export const GPU_PRODUCTS = ['POD', 'CLUSTER', 'SERVERLESS'] as const;
export const REGIONS = [
  'NORTH_AMERICA',
  'SOUTH_AMERICA',
  'EUROPE',
  'ASIA',
  'MIDDLE_EAST',
  'AFRICA',
  'OCEANIA',
  'ANTARCTICA',
  'UNKNOWN',
] as const;
export const VOLUME_TYPES = ['STANDARD', 'HIGH_PERFORMANCE'] as const;
export const COMPLIANCE = [
  'GDPR',
  'ISO_IEC_27001',
  'ISO_14001',
  'PCI_DSS',
  'HITRUST',
  'SOC_1_TYPE_2',
  'SOC_2_TYPE_2',
  'SOC_3_TYPE_2',
  'ITAR',
  'FISMA_HIGH',
  'HIPAA',
  'RENEWABLE',
] as const;

/** Query of `GET /v2/catalog/gpus[/{id}]`; which parameters combine is checked after parsing (400). */
export const gpuQuery = z.object({
  include: commaList(z.enum(['AVAILABILITY'])).optional(),
  product: commaList(z.enum(GPU_PRODUCTS)).optional(),
  count: queryInt(1, 64).optional(),
  cloud: z.enum(['SECURE', 'COMMUNITY']).optional(),
  countryCodes: commaList(z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code like FR')).optional(),
  cudaVersions: commaList(z.string().regex(/^\d+\.\d+$/, 'must be major.minor, e.g. 12.8')).optional(),
  minCudaVersion: z
    .string()
    .regex(/^\d+(\.\d+)?$/, 'must be a major or major.minor, e.g. 12 or 12.1')
    .optional(),
});
export type GpuQuery = z.infer<typeof gpuQuery>;

/** Query of `GET /v2/catalog/cpus[/{id}]`. */
export const cpuQuery = z.object({
  include: commaList(z.enum(['AVAILABILITY'])).optional(),
  product: commaList(z.enum(['POD', 'SERVERLESS'])).optional(),
  vcpuCount: queryInt(2, 512)
    .refine((n) => (n & (n - 1)) === 0, 'must be a power of two')
    .optional(),
});
export type CpuQuery = z.infer<typeof cpuQuery>;

const dataCenterInclude = commaList(z.enum(['GPU_AVAILABILITY', 'CPU_AVAILABILITY'])).optional();

/** Query of `GET /v2/catalog/datacenters`. */
export const dataCenterListQuery = z.object({
  include: dataCenterInclude,
  regions: commaList(z.enum(REGIONS)).optional(),
  networkVolumeTypes: commaList(z.enum(VOLUME_TYPES)).optional(),
  compliance: commaList(z.enum(COMPLIANCE)).optional(),
  globalNetwork: z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean()).optional(),
});
export type DataCenterListQuery = z.infer<typeof dataCenterListQuery>;

/** Query of `GET /v2/catalog/datacenters/{id}`. */
export const dataCenterQuery = z.object({ include: dataCenterInclude });
export type DataCenterQuery = z.infer<typeof dataCenterQuery>;

/** Query of `GET /v2/catalog/templates`. */
export const templateCatalogQuery = z.object({
  source: z.enum(['official', 'verified', 'community']).default('official'),
});
export type TemplateCatalogQuery = z.infer<typeof templateCatalogQuery>;

const dataCenterAvailability = z.object({ id: z.string(), name: z.string(), availability });

/** RunPod's GpuType. */
export const gpuTypeSchema = z.object({
  id: z.string(),
  name: z.string(),
  pool: z.string().nullable(),
  manufacturer: z.enum(['NVIDIA', 'AMD', 'UNKNOWN']),
  memory: z.number().int(),
  secure: z.boolean(),
  community: z.boolean(),
  price: z.object({ secure: z.number(), community: z.number(), serverless: z.number().optional() }),
  maxCount: z.object({ secure: z.number().int(), community: z.number().int() }),
  availability: availability.optional(),
  dataCenters: z.array(dataCenterAvailability).optional(),
  cudaVersions: z.array(z.object({ version: z.string(), available: z.boolean() })).optional(),
});
export type GpuTypeView = z.infer<typeof gpuTypeSchema>;

/** RunPod's CpuType. */
export const cpuTypeSchema = z.object({
  id: z.string(),
  name: z.string(),
  group: z.string(),
  vcpu: z.object({ min: z.number().int(), max: z.number().int() }),
  ramGbPerVcpu: z.number(),
  price: z.object({ securePerVcpu: z.number(), serverlessPerVcpu: z.number() }),
  availability: availability.optional(),
  dataCenters: z.array(dataCenterAvailability).optional(),
});
export type CpuTypeView = z.infer<typeof cpuTypeSchema>;

/** RunPod's DataCenter. */
export const dataCenterSchema = z.object({
  id: z.string(),
  name: z.string(),
  region: z.enum(REGIONS),
  globalNetwork: z.boolean(),
  networkVolumeTypes: z.array(z.enum(VOLUME_TYPES)),
  compliance: z.array(z.enum(COMPLIANCE)),
  gpuAvailability: z.array(dataCenterAvailability).optional(),
  cpuAvailability: z.array(dataCenterAvailability).optional(),
});
export type DataCenterView = z.infer<typeof dataCenterSchema>;

/** RunPod's Template, as the public catalog lists it: the same shape as a template of one's own. */
export const catalogTemplateSchema = templateSchema;
export type CatalogTemplateView = z.infer<typeof catalogTemplateSchema>;

export const gpuListSchema = z.object({ gpus: z.array(gpuTypeSchema) });
export const cpuListSchema = z.object({ cpus: z.array(cpuTypeSchema) });
export const dataCenterListSchema = z.object({ dataCenters: z.array(dataCenterSchema) });
export const catalogTemplateListSchema = z.object({ templates: z.array(catalogTemplateSchema) });
