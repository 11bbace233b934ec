import { CredentialCache, type Renewal, SharedLookups } from '@runplane/accounts';
import { ConflictError, type EndpointType, NotFoundError, type Principal } from '@runplane/contracts';

/** A public model the path named: the caller is not the endpoint's owner. */
export interface PublicModelRef {
  name: string;
  /** USD per job as a decimal string, or null: execution time x the worker's price. */
  pricePerRequest: string | null;
}

/** What the job API needs to know about an endpoint. */
export interface EndpointSummary {
  /** The endpoint's id, which engine calls use (for a public model, not what the path said). */
  id: string;
  /** The owner's account. */
  accountId: string;
  executionTimeoutMs: number;
  /** QUEUE endpoints take jobs; LOAD_BALANCER ones take HTTP requests at their own host. */
  type: EndpointType;
  /** Set when the path named a public model rather than one of the caller's endpoints. */
  publicModel?: PublicModelRef;
}

/** Finds a public model by name, whoever owns it (the endpoints lib's PublicEndpointsRepository). */
export interface PublicModelLookup {
  resolve(name: string): Promise<{
    name: string;
    endpointId: string;
    ownerAccountId: string;
    executionTimeoutMs: number;
    pricePerRequest: string | null;
  } | null>;
}

/** Finds an account's endpoint (the endpoints lib's repository, wired by the module). */
export interface EndpointLookup {
  findById(
    accountId: string,
    id: string,
  ): Promise<{ id: string; accountId: string; executionTimeoutMs: number; type: EndpointType } | null>;
}

/** Options of the directory beyond its lookup. */
export interface EndpointDirectoryOptions {
  /** Public models (the path names a model of another account). */
  models?: PublicModelLookup;
  /** RUNPLANE_LB_DOMAIN, to say where a load-balancing endpoint's requests go; null when not configured. */
  lbDomain?: string | null;
  now?: () => number;
}

/** Why a load-balancing endpoint takes no job, and where its requests go. */
export function loadBalancingMessage(endpointId: string, lbDomain: string | null): string {
  const where = lbDomain
    ? `https://${endpointId}.${lbDomain}/<path>`
    : `its own host, ${endpointId}.<RUNPLANE_LB_DOMAIN> (not configured on this installation)`;
  return `Endpoint ${endpointId} is a load-balancing endpoint: it takes no jobs. Send HTTP requests to its workers at ${where}`;
}

/** How long a found endpoint is trusted without asking Postgres again. */
export const ENDPOINT_CACHE_TTL_MS = 5_000;
/** An endpoint in use is looked up again in the background this long before its entry expires. */
export const ENDPOINT_RENEW_AHEAD_MS = 1_000;

/** The endpoint a lookup found; NotFoundError('Endpoint') when there was none. */
function existing(endpoint: EndpointSummary | null): EndpointSummary {
  if (!endpoint) throw new NotFoundError('Endpoint');
  return endpoint;
}

/**
 * Resolves the endpoint a job-API request names, for the caller's account only: another account's endpoint is
 * as unknown as a missing one (404). Found endpoints are cached briefly so the hot path is not a query per request:
 * one in use is renewed in the background before its entry expires, and requests that do wait for a lookup share it.
 * Misses are never cached, so a new endpoint works at once.
 */
export class EndpointDirectory {
  private readonly cache: CredentialCache<EndpointSummary>;
  private readonly lookups = new SharedLookups<EndpointSummary | null>();
  /** A failed renewal lets the entry expire: the next request looks the endpoint up and meets the error. */
  private readonly renewal: Renewal<EndpointSummary> = {
    aheadMs: ENDPOINT_RENEW_AHEAD_MS,
    start: (key, endpoint) => void this.lookUp(key, () => this.readAgain(endpoint)).catch(() => undefined),
  };
  private readonly models: PublicModelLookup | undefined;
  private readonly lbDomain: string | null;

  constructor(
    private readonly lookup: EndpointLookup,
    options: EndpointDirectoryOptions = {},
  ) {
    this.models = options.models;
    this.lbDomain = options.lbDomain ?? null;
    this.cache = new CredentialCache(options.now ?? Date.now, ENDPOINT_CACHE_TTL_MS);
  }

  /** The endpoint, as {@link require} finds it, when it takes jobs; a load-balancing one is a ConflictError (409). */
  async requireQueue(principal: Principal, endpointId: string): Promise<EndpointSummary> {
    const endpoint = await this.require(principal, endpointId);
    if (endpoint.type === 'LOAD_BALANCER') throw new ConflictError(loadBalancingMessage(endpoint.id, this.lbDomain));
    return endpoint;
  }

  /**
   * The endpoint the path names for the principal: one its account owns, else a public model of that name (model
   * names are never endpoint ids); else NotFoundError.
   */
  async require(principal: Principal, endpointId: string): Promise<EndpointSummary> {
    try {
      return await this.requireOwned(principal.accountId, endpointId);
    } catch (error) {
      if (!(error instanceof NotFoundError) || !this.models) throw error;
      const key = `model:${endpointId}`;
      return this.cache.get(key, this.renewal) ?? existing(await this.lookUp(key, () => this.readModel(endpointId)));
    }
  }

  /** The endpoint, when `accountId` owns it; else NotFoundError. */
  async requireOwned(accountId: string, endpointId: string): Promise<EndpointSummary> {
    const key = `${accountId}:${endpointId}`;
    return (
      this.cache.get(key, this.renewal) ?? existing(await this.lookUp(key, () => this.readOwned(accountId, endpointId)))
    );
  }

  /** The endpoint of `key` read (once for all who ask while it is under way); cached when found. */
  private lookUp(key: string, read: () => Promise<EndpointSummary | null>): Promise<EndpointSummary | null> {
    return this.lookups.run(key, async () => {
      const generation = this.cache.generation();
      const endpoint = await read();
      if (endpoint) this.cache.set(key, endpoint, generation);
      else this.cache.delete(key);
      return endpoint;
    });
  }

  /** A cached endpoint read again the way it was found: as a public model, or as its owner's endpoint. */
  private readAgain(endpoint: EndpointSummary): Promise<EndpointSummary | null> {
    return endpoint.publicModel
      ? this.readModel(endpoint.publicModel.name)
      : this.readOwned(endpoint.accountId, endpoint.id);
  }

  private async readOwned(accountId: string, endpointId: string): Promise<EndpointSummary | null> {
    const row = await this.lookup.findById(accountId, endpointId);
    if (!row) return null;
    const { id, accountId: owner, executionTimeoutMs, type } = row;
    return { id, accountId: owner, executionTimeoutMs, type };
  }

  /** The public model `name`, or null. */
  private async readModel(name: string): Promise<EndpointSummary | null> {
    const row = await this.models?.resolve(name);
    if (!row) return null;
    return {
      id: row.endpointId,
      accountId: row.ownerAccountId,
      executionTimeoutMs: row.executionTimeoutMs,
      // Only queue endpoints are published.
      type: 'QUEUE',
      publicModel: { name: row.name, pricePerRequest: row.pricePerRequest },
    };
  }
}
