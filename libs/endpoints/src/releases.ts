import type { DbClient } from '@runplane/db';

/** One endpoint version as the database trigger recorded it (see prisma/migrations/*_endpoint_releases). */
export interface EndpointReleaseRow {
  id: string;
  version: number;
  createdAt: Date;
  /** Endpoint columns and, under `template`, its template's container settings at this version. */
  config: Record<string, unknown>;
}

/** A changed configuration field: top-level (`gpuTypeIds`) or template-scoped (`template.imageName`). */
export interface ReleaseChange {
  field: string;
  old: unknown;
  new: unknown;
}

function flatten(config: Record<string, unknown> | null): Map<string, unknown> {
  const fields = new Map<string, unknown>();
  for (const [key, value] of Object.entries(config ?? {})) {
    if (key === 'template' && typeof value === 'object' && value !== null) {
      for (const [inner, innerValue] of Object.entries(value)) fields.set(`template.${inner}`, innerValue);
    } else {
      fields.set(key, value);
    }
  }
  return fields;
}

/** JSON with sorted object keys, so equal values compare equal whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The fields that differ between two configurations; against null (the first release) every field is new. */
export function releaseDiff(
  previous: Record<string, unknown> | null,
  current: Record<string, unknown>,
): ReleaseChange[] {
  const before = flatten(previous);
  const after = flatten(current);
  const fields = [...new Set([...before.keys(), ...after.keys()])].sort();
  return fields
    .filter((field) => canonical(before.get(field)) !== canonical(after.get(field)))
    .map((field) => ({ field, old: before.get(field) ?? null, new: after.get(field) ?? null }));
}

/** Reads the releases the database records for an account's endpoints. */
export class EndpointReleasesRepository {
  constructor(private readonly db: DbClient) {}

  /** The endpoint's releases, newest first; empty when the endpoint is not the account's. */
  async list(accountId: string, endpointId: string): Promise<EndpointReleaseRow[]> {
    const rows = await this.db.endpointRelease.findMany({
      where: { accountId, endpointId },
      orderBy: { version: 'desc' },
    });
    return rows.map((row) => ({
      id: row.id,
      version: row.version,
      createdAt: row.createdAt,
      config: (row.config ?? {}) as Record<string, unknown>,
    }));
  }
}
