import { type DbClient, newId, type Prisma, type PublicEndpoint } from '@runplane/db';

/** What a publication is made of, besides its identity. */
export interface PublicEndpointFields {
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  /** USD per job as a decimal string, or null. */
  pricePerRequest: string | null;
}

/** A publication and the endpoint behind it, as the job API resolves a model name. */
export interface PublishedEndpoint {
  name: string;
  endpointId: string;
  ownerAccountId: string;
  executionTimeoutMs: number;
  pricePerRequest: string | null;
}

const json = (value: Record<string, unknown>): Prisma.InputJsonValue => value as Prisma.InputJsonValue;

/**
 * Persistence of public endpoints. The owner's reads and writes are scoped to its account; the job API's model lookup
 * and the public list are installation-wide, since every account may call a public model.
 */
export class PublicEndpointsRepository {
  constructor(private readonly db: DbClient) {}

  create(
    accountId: string,
    data: { name: string; endpointId: string } & PublicEndpointFields,
  ): Promise<PublicEndpoint> {
    const { inputSchema, outputSchema, ...rest } = data;
    return this.db.publicEndpoint.create({
      data: { id: newId(), accountId, ...rest, inputSchema: json(inputSchema), outputSchema: json(outputSchema) },
    });
  }

  findByName(accountId: string, name: string): Promise<PublicEndpoint | null> {
    return this.db.publicEndpoint.findFirst({ where: { accountId, name } });
  }

  listByAccount(accountId: string): Promise<PublicEndpoint[]> {
    return this.db.publicEndpoint.findMany({ where: { accountId }, orderBy: { name: 'asc' } });
  }

  async update(accountId: string, name: string, data: Partial<PublicEndpointFields>): Promise<PublicEndpoint | null> {
    const { inputSchema, outputSchema, ...rest } = data;
    const { count } = await this.db.publicEndpoint.updateMany({
      where: { accountId, name },
      data: {
        ...rest,
        ...(inputSchema === undefined ? {} : { inputSchema: json(inputSchema) }),
        ...(outputSchema === undefined ? {} : { outputSchema: json(outputSchema) }),
      },
    });
    return count === 1 ? this.findByName(accountId, name) : null;
  }

  async remove(accountId: string, name: string): Promise<boolean> {
    const { count } = await this.db.publicEndpoint.deleteMany({ where: { accountId, name } });
    return count === 1;
  }

  /** Every public model of the installation that takes jobs (its endpoint is a QUEUE endpoint), by name. */
  listAll(): Promise<PublicEndpoint[]> {
    return this.db.publicEndpoint.findMany({ where: { endpoint: { type: 'QUEUE' } }, orderBy: { name: 'asc' } });
  }

  /**
   * The publication named `name` and its endpoint, whoever owns it (the job API's model lookup); null also while its
   * endpoint has been switched to LOAD_BALANCER, which takes no jobs.
   */
  async resolve(name: string): Promise<PublishedEndpoint | null> {
    const row = await this.db.publicEndpoint.findUnique({
      where: { name },
      include: { endpoint: { select: { executionTimeoutMs: true, type: true } } },
    });
    if (!row || row.endpoint.type !== 'QUEUE') return null;
    return {
      name: row.name,
      endpointId: row.endpointId,
      ownerAccountId: row.accountId,
      executionTimeoutMs: row.endpoint.executionTimeoutMs,
      pricePerRequest: row.pricePerRequest === null ? null : row.pricePerRequest.toFixed(6),
    };
  }

  /** Whether some account published a model under `name`. */
  async nameTaken(name: string): Promise<boolean> {
    return (await this.db.publicEndpoint.count({ where: { name } })) > 0;
  }

  /** Whether any account has an endpoint with this id (a model name may never equal one). */
  async endpointIdExists(id: string): Promise<boolean> {
    return (await this.db.endpoint.count({ where: { id } })) > 0;
  }

  /** The USD hourly price of a worker (a Pod row of an endpoint), as the job meter bills it; null when it is gone. */
  async workerCostPerHr(endpointId: string, workerId: string): Promise<string | null> {
    const pod = await this.db.pod.findFirst({ where: { id: workerId, endpointId }, select: { costPerHr: true } });
    return pod ? pod.costPerHr.toFixed(6) : null;
  }
}
