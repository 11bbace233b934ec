import type { DbClient, Template } from '@runplane/db';
import { joinArgs } from '../shared/command-line';
import type { CatalogTemplateView, TemplateCatalogQuery } from './catalog.schemas';

/** RunPod returns at most 100 catalog templates and does not paginate them. */
const CATALOG_LIMIT = 100;

function envOf(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** A public template as RunPod's Template; `registry` is shown to its owner only. */
export function catalogTemplateView(row: Template, accountId: string): CatalogTemplateView {
  return {
    id: row.id,
    name: row.name,
    image: row.imageName,
    args: joinArgs(row.dockerStartCmd),
    disk: row.containerDiskInGb,
    mounts: row.volumeInGb > 0 ? { persistent: { size: row.volumeInGb, path: row.volumeMountPath } } : {},
    ports: row.ports,
    env: envOf(row.env),
    registry: row.accountId === accountId ? row.containerRegistryAuthId : null,
    serverless: row.isServerless,
    public: row.isPublic,
    category: row.category,
    startSsh: row.startSsh,
    startJupyter: row.startJupyter,
    allowedCudaVersions: row.allowedCudaVersions,
  };
}

/**
 * `/v2/catalog/templates`: `official` is the catalog's own templates (seeded from the catalog file), `community` the
 * templates accounts share publicly, `verified` is empty (Runplane verifies no community template).
 */
export class TemplateCatalog {
  constructor(private readonly db: DbClient) {}

  async list(accountId: string, query: TemplateCatalogQuery): Promise<CatalogTemplateView[]> {
    if (query.source === 'verified') return [];
    const where =
      query.source === 'official' ? { isRunpod: true, isPublic: true } : { isRunpod: false, isPublic: true };
    const rows = await this.db.template.findMany({
      where,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: CATALOG_LIMIT,
    });
    return rows.map((row) => catalogTemplateView(row, accountId));
  }
}
