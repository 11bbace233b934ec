import { type DbClient, type Endpoint, Prisma, type Template, withTransaction } from '@runplane/db';

/** The columns of an endpoint's template its reads need: who may use it, and the env it brings. */
const TEMPLATE_COLUMNS = ['accountId', 'isPublic', 'isRunpod', 'env'] as const satisfies readonly (keyof Template)[];

/** What an endpoint's reads take of its template. */
export type EndpointTemplateRow = Pick<Template, (typeof TEMPLATE_COLUMNS)[number]>;

/** An endpoint as its reads show it: with its template's {@link EndpointTemplateRow}, read in the same query. */
export type ShownEndpoint = Endpoint & { template: EndpointTemplateRow };

/** An endpoint's own columns: the model's scalar fields, as Prisma's reads return them. */
const ENDPOINT_COLUMNS = Object.values(Prisma.EndpointScalarFieldEnum);

/** A row of {@link SHOWN}: the endpoint's columns, and its template's as `template.<column>`. */
type ShownRow = Endpoint & { [C in (typeof TEMPLATE_COLUMNS)[number] as `template.${C}`]: Template[C] };

/**
 * Endpoints with their templates' {@link TEMPLATE_COLUMNS}, one row each, in one raw statement that Prisma's runtime
 * passes through (its parameters in, each column's value out, typed as for the model): the query compiler's
 * `include` of the same columns maps every column itself, at about twice the gateway's CPU per listing. The columns
 * are the model's own ({@link ENDPOINT_COLUMNS}), so the rows keep Prisma's types.
 */
const SHOWN = Prisma.raw(
  `SELECT ${[
    ...ENDPOINT_COLUMNS.map((column) => `e."${column}"`),
    ...TEMPLATE_COLUMNS.map((column) => `t."${column}" AS "template.${column}"`),
  ].join(', ')} FROM "endpoints" e JOIN "templates" t ON t."id" = e."templateId"`,
);

/** The order of every listing: oldest first, the id ordering endpoints created in the same millisecond. */
const SHOWN_ORDER = Prisma.sql`ORDER BY e."createdAt", e."id"`;

function shownOf(row: ShownRow): ShownEndpoint {
  const endpoint: Record<string, unknown> = {};
  for (const column of ENDPOINT_COLUMNS) endpoint[column] = row[column];
  const template = Object.fromEntries(TEMPLATE_COLUMNS.map((column) => [column, row[`template.${column}`]]));
  return { ...(endpoint as Endpoint), template: template as EndpointTemplateRow };
}

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
  async pageByAccount(accountId: string, after: EndpointPosition | undefined, take: number): Promise<ShownEndpoint[]> {
    const later = after
      ? Prisma.sql`AND (e."createdAt" > ${after.createdAt} OR (e."createdAt" = ${after.createdAt} AND e."id" > ${after.id}))`
      : Prisma.empty;
    const where = Prisma.sql`WHERE e."accountId" = ${accountId} ${later}`;
    return this.shown(Prisma.sql`${where} ${SHOWN_ORDER} LIMIT ${take}`);
  }

  async findById(accountId: string, id: string): Promise<Endpoint | null> {
    return this.db.endpoint.findFirst({ where: { id, accountId } });
  }

  /** {@link findById} with the endpoint's template. */
  async findShown(accountId: string, id: string): Promise<ShownEndpoint | null> {
    return (await this.shown(Prisma.sql`WHERE e."id" = ${id} AND e."accountId" = ${accountId}`))[0] ?? null;
  }

  /** The account's endpoints, oldest first, each with its template. */
  listByAccount(accountId: string): Promise<ShownEndpoint[]> {
    return this.shown(Prisma.sql`WHERE e."accountId" = ${accountId} ${SHOWN_ORDER}`);
  }

  /** The endpoints {@link SHOWN} reads with `rest` (their filter, order and limit). */
  private async shown(rest: Prisma.Sql): Promise<ShownEndpoint[]> {
    return (await this.db.$queryRaw<ShownRow[]>`${SHOWN} ${rest}`).map(shownOf);
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
