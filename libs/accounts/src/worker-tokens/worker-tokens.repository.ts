import type { DbClient } from '@runplane/db';

/** A stored worker token (the hash, never the token). */
export interface WorkerTokenRow {
  id: string;
  accountId: string;
  endpointId: string;
  workerId: string;
  hash: string;
  createdAt: Date;
  revokedAt: Date | null;
}

/** Persistence of worker tokens; writes and listings are scoped to an account or an endpoint. */
export class WorkerTokensRepository {
  constructor(private readonly db: DbClient) {}

  create(data: Omit<WorkerTokenRow, 'createdAt' | 'revokedAt'>): Promise<WorkerTokenRow> {
    return this.db.workerToken.create({ data });
  }

  /** Stores several tokens in one statement. */
  async createMany(data: Omit<WorkerTokenRow, 'createdAt' | 'revokedAt'>[]): Promise<void> {
    await this.db.workerToken.createMany({ data });
  }

  /**
   * Authentication looks tokens up by their hash alone (the hash is the credential), several in one query: the
   * tokens of those hashes, without the hashes no token has.
   */
  findByHashes(hashes: readonly string[]): Promise<WorkerTokenRow[]> {
    return this.db.workerToken.findMany({ where: { hash: { in: [...hashes] } } });
  }

  findById(id: string): Promise<WorkerTokenRow | null> {
    return this.db.workerToken.findUnique({ where: { id } });
  }

  /** Every token ever issued for an endpoint, revoked ones included, oldest first. */
  listByEndpoint(endpointId: string): Promise<WorkerTokenRow[]> {
    return this.db.workerToken.findMany({ where: { endpointId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  }

  /** The account owning an endpoint: operators issue worker tokens by endpoint id alone. */
  async findEndpointAccount(endpointId: string): Promise<string | null> {
    const row = await this.db.endpoint.findUnique({ where: { id: endpointId }, select: { accountId: true } });
    return row?.accountId ?? null;
  }

  /** Revokes every live token of one worker of an endpoint; returns how many. */
  async revokeWorker(accountId: string, endpointId: string, workerId: string, at: Date): Promise<number> {
    const { count } = await this.db.workerToken.updateMany({
      where: { accountId, endpointId, workerId, revokedAt: null },
      data: { revokedAt: at },
    });
    return count;
  }

  /** Revokes every live token of several workers of one endpoint; returns how many. */
  async revokeWorkers(accountId: string, endpointId: string, workerIds: string[], at: Date): Promise<number> {
    const { count } = await this.db.workerToken.updateMany({
      where: { accountId, endpointId, workerId: { in: workerIds }, revokedAt: null },
      data: { revokedAt: at },
    });
    return count;
  }

  /** Revokes one token unless it already is; returns whether this call revoked it. */
  async revokeById(id: string, at: Date): Promise<boolean> {
    const { count } = await this.db.workerToken.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: at } });
    return count === 1;
  }
}
