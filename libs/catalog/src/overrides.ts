import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { DEFAULT_CPU_FLAVORS } from './data/cpu-flavors';
import { DEFAULT_DATA_CENTERS } from './data/data-centers';
import { DEFAULT_GPU_TYPES, gfdProductLabel } from './data/gpu-types';
import type { Catalog, CpuFlavorEntry, DataCenterEntry, GpuTypeEntry } from './entries';
import { buildPublicTemplates, incompleteTemplates, templateOverride } from './public-templates';
import { DEFAULT_STORAGE_PRICES } from './storage-prices';

const price = z.number().nonnegative().nullable();
const poolId = z.string().regex(/^[A-Z0-9_]+$/, { error: 'expected a pool id like "ADA_24"' });
const count = z.number().int().positive();

// Strict objects: a misspelt field ("securPrice") is an error, not a silently ignored override.
const gpuTypeOverride = z
  .strictObject({
    displayName: z.string().min(1),
    manufacturer: z.string().min(1),
    memoryInGb: count,
    gfdProduct: z.string().min(1).nullable(),
    maxGpuCount: count,
    pool: poolId.nullable(),
    secureCloud: z.boolean(),
    communityCloud: z.boolean(),
    securePrice: price,
    communityPrice: price,
    secureSpotPrice: price,
    communitySpotPrice: price,
    oneWeekPrice: price,
    oneMonthPrice: price,
    threeMonthPrice: price,
    sixMonthPrice: price,
  })
  .partial();

const cpuFlavorOverride = z
  .strictObject({
    displayName: z.string().min(1),
    groupId: z.string().min(1),
    minVcpu: count,
    maxVcpu: count,
    ramPerVcpuGb: count,
    pricePerVcpuHr: z.number().nonnegative(),
  })
  .partial();

const dataCenterOverride = z
  .strictObject({
    name: z.string().min(1),
    location: z.string().min(1),
    countryCode: z.string().regex(/^[A-Z]{2}$/, { error: 'expected an ISO 3166-1 alpha-2 code like "RO"' }),
    storageSupport: z.boolean(),
    highPerformanceStorage: z.boolean(),
    listed: z.boolean(),
  })
  .partial();

const storagePricesOverride = z
  .strictObject({
    podDiskRunningPerGbMonth: z.number().nonnegative(),
    podDiskStoppedPerGbMonth: z.number().nonnegative(),
    networkVolumePerGbMonth: z.number().nonnegative(),
    networkVolumeOverTierPerGbMonth: z.number().nonnegative(),
    networkVolumeTierGb: z.number().int().nonnegative(),
  })
  .partial();

const catalogOverridesSchema = z.strictObject({
  $comment: z.string().optional(),
  gpuTypes: z.record(z.string().min(1), gpuTypeOverride).optional(),
  cpuFlavors: z
    .record(z.string().regex(/^[a-z0-9]+$/, { error: 'expected lowercase letters and digits' }), cpuFlavorOverride)
    .optional(),
  dataCenters: z
    .record(z.string().regex(/^[A-Z0-9-]+$/, { error: 'expected an id like "EU-RO-1"' }), dataCenterOverride)
    .optional(),
  storagePrices: storagePricesOverride.optional(),
  /** Serverless GPU pools: each listed pool's members, replacing its built-in ones. */
  pools: z.record(poolId, z.array(z.string().min(1))).optional(),
  templates: z
    .record(
      z.string().regex(/^[a-z0-9-]+$/, { error: 'expected lowercase letters, digits and dashes' }),
      templateOverride,
    )
    .optional(),
});

/** Operator overrides of the built-in catalog, keyed by id; unknown ids add entries. */
export type CatalogOverrides = z.infer<typeof catalogOverridesSchema>;

/** A catalog overrides file or object that does not validate; the message names the offending field. */
export class CatalogOverridesError extends Error {
  override readonly name = 'CatalogOverridesError';
}

function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((key, i) =>
      typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)
        ? `${i === 0 ? '' : '.'}${key}`
        : `[${JSON.stringify(key)}]`,
    )
    .join('');
}

// Fields an entry must have when an override adds an id the built-in catalog lacks.
const REQUIRED_FOR_NEW = {
  gpuTypes: { known: DEFAULT_GPU_TYPES, fields: ['displayName', 'memoryInGb', 'securePrice'] },
  cpuFlavors: { known: DEFAULT_CPU_FLAVORS, fields: ['displayName', 'ramPerVcpuGb', 'pricePerVcpuHr'] },
  dataCenters: { known: DEFAULT_DATA_CENTERS, fields: ['name', 'location', 'countryCode'] },
} as const;

function checkNewEntries(overrides: CatalogOverrides): void {
  for (const section of ['gpuTypes', 'cpuFlavors', 'dataCenters'] as const) {
    const { known, fields } = REQUIRED_FOR_NEW[section];
    for (const [id, entry] of Object.entries(overrides[section] ?? {})) {
      if (known.some((k) => k.id === id)) continue;
      const missing = fields.find((field) => !(field in entry));
      if (missing !== undefined) {
        const where = formatPath([section, id, missing]);
        throw new CatalogOverridesError(`${where}: required, because "${id}" is not in the built-in catalog`);
      }
    }
  }
  for (const { id, field } of incompleteTemplates(overrides.templates)) {
    throw new CatalogOverridesError(
      `${formatPath(['templates', id, field])}: required, because "${id}" is a new template`,
    );
  }
}

/** Validates an overrides object (e.g. parsed JSON). Throws {@link CatalogOverridesError} naming the field. */
export function parseCatalogOverrides(input: unknown): CatalogOverrides {
  const result = catalogOverridesSchema.safeParse(input);
  if (!result.success) {
    const problems = result.error.issues.slice(0, 5).map((issue) => {
      const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
      const where = formatPath([...issue.path, ...keys.slice(0, 1)]) || '(root)';
      return `${where}: ${issue.message}`;
    });
    throw new CatalogOverridesError(problems.join('; '));
  }
  checkNewEntries(result.data);
  return result.data;
}

/** Reads and validates an operator's catalog overrides JSON file. */
export async function loadCatalogOverrides(path: string): Promise<CatalogOverrides> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new CatalogOverridesError(`catalog overrides ${path}: cannot read the file (${(err as Error).message})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new CatalogOverridesError(`catalog overrides ${path}: not valid JSON (${(err as Error).message})`);
  }
  try {
    return parseCatalogOverrides(json);
  } catch (err) {
    if (err instanceof CatalogOverridesError)
      throw new CatalogOverridesError(`catalog overrides ${path}: ${err.message}`);
    throw err;
  }
}

function merge<E extends { id: string }>(
  defaults: readonly E[],
  overrides: Record<string, Partial<E>> | undefined,
  blank: (id: string) => E,
): E[] {
  const merged = defaults.map((entry) => ({ ...entry, ...overrides?.[entry.id], id: entry.id }));
  for (const [id, fields] of Object.entries(overrides ?? {})) {
    if (!defaults.some((entry) => entry.id === id)) merged.push({ ...blank(id), ...fields, id });
  }
  return merged;
}

function blankGpuType(id: string): GpuTypeEntry {
  const none = null;
  return {
    id,
    displayName: id,
    manufacturer: id.startsWith('AMD') ? 'AMD' : 'NVIDIA',
    memoryInGb: 0,
    gfdProduct: gfdProductLabel(id),
    maxGpuCount: 8,
    pool: null,
    secureCloud: true,
    communityCloud: false,
    securePrice: none,
    communityPrice: none,
    secureSpotPrice: none,
    communitySpotPrice: none,
    oneWeekPrice: none,
    oneMonthPrice: none,
    threeMonthPrice: none,
    sixMonthPrice: none,
  };
}

const blankCpuFlavor = (id: string): CpuFlavorEntry => ({
  id,
  displayName: id,
  groupId: id.replace(/[a-z]$/, ''),
  minVcpu: 2,
  maxVcpu: 32,
  ramPerVcpuGb: 4,
  pricePerVcpuHr: 0,
});

const blankDataCenter = (id: string): DataCenterEntry => ({
  id,
  name: id,
  location: id,
  countryCode: 'US',
  storageSupport: true,
  highPerformanceStorage: false,
  listed: true,
});

/** The `pools` section wins over the GPU types' own `pool`: a listed pool holds exactly its listed types. */
function withPools(gpuTypes: GpuTypeEntry[], pools: Record<string, string[]> | undefined): GpuTypeEntry[] {
  for (const [pool, members] of Object.entries(pools ?? {})) {
    for (const gpu of gpuTypes) {
      if (members.includes(gpu.id)) gpu.pool = pool;
      else if (gpu.pool === pool) gpu.pool = null;
    }
  }
  return gpuTypes;
}

/** The built-in catalog with `overrides` applied (override fields win; unknown ids are added). */
export function buildCatalog(overrides?: CatalogOverrides): Catalog {
  return {
    gpuTypes: withPools(merge(DEFAULT_GPU_TYPES, overrides?.gpuTypes, blankGpuType), overrides?.pools),
    templates: buildPublicTemplates(overrides?.templates),
    cpuFlavors: merge(DEFAULT_CPU_FLAVORS, overrides?.cpuFlavors, blankCpuFlavor),
    dataCenters: merge(DEFAULT_DATA_CENTERS, overrides?.dataCenters, blankDataCenter),
    storagePrices: { ...DEFAULT_STORAGE_PRICES, ...overrides?.storagePrices },
  };
}
