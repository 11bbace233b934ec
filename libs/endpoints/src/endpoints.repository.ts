import { type DbClient, type Endpoint, type Template, withTransaction } from '@runplane/db';

/** The columns of an endpoint's template its reads need: who may use it, and the env it brings. */
const TEMPLATE_ENV = { select: { accountId: true, isPublic: true, isRunpod: true, env: true } } as const;

/** What an endpoint's reads take of its template. */
export type EndpointTemplateRow = Pick<Template, 'accountId' | 'isPublic' | 'isRunpod' | 'env'>;

/** An endpoint as its reads show it: with its template's {@link EndpointTemplateRow}, read in the same query. */
export type ShownEndpoint = Endpoint & { template: EndpointTemplateRow };

const ORDER = [{ createdAt: 'asc' }, { id: 'asc' }] as const;

/** The columns an endpoint's configuration is made of (everything but identity, version and timestamps). */
export type EndpointConfig = Omit<
  Endpoint,
  'id' | 'accountId' | 'version' | 'createdAt' | 'updatedAt' | 'env' | 'type'
> & {
  env: Record<string, string>;
  /** QUEUE or LOAD_BALANCER (v2's type, v1's `type` extension); QUEUE unless given. */
  type?: Endpoint['type'];
};

/** Where a page of endpoints continues: after the endpoint created at `createdAt` with this `id`. */
export interface EndpointPosition {
  createdAt: Date;
  id: string;
}

/** Persistence of serverless endpoints; every tenant method is scoped to an account. */
export class EndpointsRepository {
  constructor(private readonly db: DbClient) {}

  create(data: EndpointConfig & { id: string; accountId: string }): Promise<Endpoint> {
    return this.db.endpoint.create({ data });
  }

  /**
   * One page of the account's endpoints in the order of {@link listByAccount}: at most `take` after the endpoint at
   * `after` (its creation time and id), so a page reads its own rows, not every endpoint before it.
   */
  pageByAccount(accountId: string, after: EndpointPosition | undefined, take: number): Promise<ShownEndpoint[]> {
    const later = after
      ? { createdAt: { gte: after.createdAt }, OR: [{ createdAt: { gt: after.createdAt } }, { id: { gt: after.id } }] }
      : {};
    return this.db.endpoint.findMany({
      where: { accountId, ...later },
      include: { template: TEMPLATE_ENV },
      orderBy: [...ORDER],
      take,
    });
  }

  async findById(accountId: string, id: string): Promise<Endpoint | null> {
    return this.db.endpoint.findFirst({ where: { id, accountId } });
  }

  /** {@link findById} with the endpoint's template. */
  findShown(accountId: string, id: string): Promise<ShownEndpoint | null> {
    return this.db.endpoint.findFirst({ where: { id, accountId }, include: { template: TEMPLATE_ENV } });
  }

  /** The account's endpoints, oldest first, each with its template. */
  listByAccount(accountId: string): Promise<ShownEndpoint[]> {
    return this.db.endpoint.findMany({
      where: { accountId },
      include: { template: TEMPLATE_ENV },
      orderBy: [...ORDER],
    });
  }

  /** Writes a new configuration; `bumpVersion` increments the version in the same statement. */
  async update(
    accountId: string,
    id: string,
    data: Partial<EndpointConfig>,
    bumpVersion: boolean,
  ): Promise<Endpoint | null> {
    const version = bumpVersion ? { version: { increment: 1 } } : {};
    const { count } = await this.db.endpoint.updateMany({ where: { id, accountId }, data: { ...data, ...version } });
    return count === 1 ? this.findById(accountId, id) : null;
  }

  /**
   * Deletes the endpoint and its worker Pod rows together, so no worker is left pointing at a deleted
   * endpoint (the scheduler removes cluster objects whose row is gone).
   */
  async deleteWithWorkers(accountId: string, id: string): Promise<boolean> {
    return withTransaction(this.db, async (tx) => {
      await tx.pod.deleteMany({ where: { accountId, endpointId: id } });
      const { count } = await tx.endpoint.deleteMany({ where: { id, accountId } });
      return count === 1;
    });
  }
}
