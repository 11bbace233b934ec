import type { DbClient } from '@runplane/db';
import { z } from 'zod';
import { DEFAULT_PUBLIC_TEMPLATES } from './data/public-templates';
import type { PublicTemplateEntry } from './entries';

/** The account that owns the catalog's public templates (never used to sign in: it has no API key). */
export const CATALOG_ACCOUNT_ID = 'runplane-catalog';

/** A template in the catalog file: every field of a new one but `name` and `imageName` has a default; null retires. */
export const templateOverride = z
  .strictObject({
    name: z.string().min(1).max(191),
    imageName: z.string().min(1).max(512),
    category: z.enum(['NVIDIA', 'AMD', 'CPU']),
    isServerless: z.boolean(),
    containerDiskInGb: z.number().int().positive(),
    volumeInGb: z.number().int().nonnegative(),
    volumeMountPath: z.string().min(1),
    ports: z.array(z.string().regex(/^\d+\/(http|tcp|udp)$/, { error: 'expected "8888/http" or "22/tcp"' })),
    env: z.record(z.string(), z.string()),
    dockerStartCmd: z.array(z.string()),
    dockerEntrypoint: z.array(z.string()),
    readme: z.string(),
  })
  .partial()
  .nullable();

/** The `templates` section of the catalog file, keyed by template id. */
export type TemplateOverrides = Record<string, z.infer<typeof templateOverride>>;

const blank = (id: string): PublicTemplateEntry => ({
  id,
  name: id,
  imageName: '',
  category: 'NVIDIA',
  isServerless: false,
  containerDiskInGb: 20,
  volumeInGb: 0,
  volumeMountPath: '/workspace',
  ports: [],
  env: {},
  dockerStartCmd: [],
  dockerEntrypoint: [],
  readme: '',
});

/** The built-in public templates with the file's changes: fields replace, new ids add, null removes one. */
export function buildPublicTemplates(overrides: TemplateOverrides | undefined): PublicTemplateEntry[] {
  const merged = new Map(DEFAULT_PUBLIC_TEMPLATES.map((entry) => [entry.id, { ...entry }]));
  for (const [id, fields] of Object.entries(overrides ?? {})) {
    if (fields === null) merged.delete(id);
    else merged.set(id, { ...(merged.get(id) ?? blank(id)), ...fields, id });
  }
  return [...merged.values()];
}

/** Ids of new templates that lack `name` or `imageName` (the fields without a default). */
export function incompleteTemplates(overrides: TemplateOverrides | undefined): { id: string; field: string }[] {
  const known = new Set(DEFAULT_PUBLIC_TEMPLATES.map((entry) => entry.id));
  return Object.entries(overrides ?? {}).flatMap(([id, fields]) => {
    if (fields === null || known.has(id)) return [];
    const missing = (['name', 'imageName'] as const).find((field) => fields[field] === undefined);
    return missing === undefined ? [] : [{ id, field: missing }];
  });
}

/**
 * Writes the catalog's public templates (owned by {@link CATALOG_ACCOUNT_ID}, public and `isRunpod`) and unpublishes
 * the catalog account's templates no longer listed (rows stay: Pods and endpoints may refer to them).
 */
export async function seedPublicTemplates(tx: DbClient, templates: readonly PublicTemplateEntry[]): Promise<void> {
  await tx.account.upsert({
    where: { id: CATALOG_ACCOUNT_ID },
    create: { id: CATALOG_ACCOUNT_ID, name: 'Runplane catalog' },
    update: {},
  });
  for (const { id, ...fields } of templates) {
    const data = { ...fields, isPublic: true, isRunpod: true };
    await tx.template.upsert({ where: { id }, create: { id, accountId: CATALOG_ACCOUNT_ID, ...data }, update: data });
  }
  await tx.template.updateMany({
    where: { accountId: CATALOG_ACCOUNT_ID, id: { notIn: templates.map((t) => t.id) } },
    data: { isPublic: false, isRunpod: false },
  });
}
