import { type DbClient, isForeignKeyViolation, Prisma, type Template, withTransaction } from '@runplane/db';
import { FINISHED_POD_STATUS } from '../registry-auth/in-use';
import type { GuardedDelete } from '../registry-auth/registry-auth.repository';

/** Columns a template create writes. */
export interface TemplateRow {
  id: string;
  accountId: string;
  name: string;
  imageName: string;
  category: Template['category'];
  containerDiskInGb: number;
  volumeInGb: number;
  volumeMountPath: string;
  ports: string[];
  env: Record<string, string>;
  dockerEntrypoint: string[];
  dockerStartCmd: string[];
  isPublic: boolean;
  isServerless: boolean;
  readme: string;
  containerRegistryAuthId: string | null;
}

/** Columns a template update may change (undefined = keep). */
export type TemplateChanges = Partial<Omit<TemplateRow, 'id' | 'accountId' | 'category' | 'isServerless'>>;

/** The columns of a template that decide who may use it and what variables it brings. */
export type TemplateEnvRow = Pick<Template, 'accountId' | 'isPublic' | 'isRunpod' | 'env'>;

/** Which templates beyond the caller's own a list includes. */
export interface TemplateVisibility {
  includePublic: boolean;
  includeRunpod: boolean;
  includeEndpointBound: boolean;
}

/** Anyone may read a public or platform template; only its owner may change it. */
const readableBy = (accountId: string): Prisma.TemplateWhereInput => ({
  OR: [{ accountId }, { isPublic: true }, { isRunpod: true }],
});

/** {@link readableBy} for a row already read (another domain's join brought it). */
export function isReadableBy(row: TemplateEnvRow, accountId: string): boolean {
  return row.accountId === accountId || row.isPublic || row.isRunpod;
}

/** Persistence of templates; every method takes the calling account. */
export class TemplatesRepository {
  constructor(private readonly db: DbClient) {}

  create(data: TemplateRow): Promise<Template> {
    return this.db.template.create({ data });
  }

  /** The caller's template, or a public or platform one. */
  findReadable(accountId: string, id: string): Promise<Template | null> {
    return this.db.template.findFirst({ where: { AND: [{ id }, readableBy(accountId)] } });
  }

  /** The templates of `ids` the account may read (any missing or unreadable one is left out), in one query. */
  findReadableMany(accountId: string, ids: readonly string[]): Promise<Template[]> {
    return this.db.template.findMany({ where: { AND: [{ id: { in: [...ids] } }, readableBy(accountId)] } });
  }

  findOwned(accountId: string, id: string): Promise<Template | null> {
    return this.db.template.findFirst({ where: { id, accountId } });
  }

  /** The caller's templates plus the kinds asked for; templates its endpoints use only when asked. */
  list(accountId: string, visibility: TemplateVisibility): Promise<Template[]> {
    const visible: Prisma.TemplateWhereInput[] = [{ accountId }];
    if (visibility.includePublic) visible.push({ isPublic: true, isRunpod: false });
    if (visibility.includeRunpod) visible.push({ isRunpod: true });
    const where: Prisma.TemplateWhereInput = { OR: visible };
    if (!visibility.includeEndpointBound) where.endpoints = { none: { accountId } };
    return this.db.template.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  }

  /**
   * Applies changes to the caller's template. When what a worker runs changes, endpoints on the template
   * get a new version in the same transaction so their workers roll to it.
   */
  async update(accountId: string, id: string, changes: TemplateChanges, rollEndpoints: boolean): Promise<boolean> {
    return withTransaction(this.db, async (tx) => {
      const { count } = await tx.template.updateMany({ where: { id, accountId }, data: changes });
      if (count === 1 && rollEndpoints) {
        await tx.endpoint.updateMany({ where: { templateId: id }, data: { version: { increment: 1 } } });
      }
      return count === 1;
    });
  }

  /**
   * Deletes the caller's template unless one of its live Pods or an endpoint uses it. Other accounts' Pods
   * started from a public template keep their own copy of its settings (the link is nulled); other accounts'
   * endpoints do block, and are counted but not named.
   */
  async deleteUnused(accountId: string, id: string): Promise<GuardedDelete> {
    try {
      return await withTransaction(this.db, async (tx) => {
        if (!(await tx.template.findFirst({ where: { id, accountId }, select: { id: true } })))
          return { status: 'missing' };
        const live = { templateId: id, desiredStatus: { not: FINISHED_POD_STATUS } };
        const idsOnly = { select: { id: true }, orderBy: { id: 'asc' } } as const;
        const pods = await tx.pod.findMany({ where: { ...live, accountId, endpointId: null }, ...idsOnly });
        const endpoints = await tx.endpoint.findMany({ where: { templateId: id, accountId }, ...idsOnly });
        const otherEndpoints = await tx.endpoint.count({ where: { templateId: id, accountId: { not: accountId } } });
        if (pods.length + endpoints.length + otherEndpoints > 0) {
          return {
            status: 'in-use',
            usage: [
              { kind: 'pods', ids: pods.map((p) => p.id) },
              { kind: 'endpoints', ids: endpoints.map((e) => e.id), hiddenCount: otherEndpoints },
            ],
          };
        }
        await tx.template.deleteMany({ where: { id, accountId } });
        return { status: 'deleted' };
      });
    } catch (error) {
      // An endpoint created between the check and the delete: the foreign key caught it.
      if (isForeignKeyViolation(error)) return { status: 'in-use', usage: [] };
      throw error;
    }
  }
}
