import { NotFoundError, type Principal } from '@runplane/contracts';

/** What the job API needs to know about an endpoint. */
export interface EndpointSummary {
  id: string;
  accountId: string;
  executionTimeoutMs: number;
}

/** Finds an account's endpoint (the endpoints lib's repository, wired by the module). */
export interface EndpointLookup {
  findById(
    accountId: string,
    id: string,
  ): Promise<{ id: string; accountId: string; executionTimeoutMs: number } | null>;
}

/** How long a found endpoint is trusted without asking Postgres again. */
const CACHE_TTL_MS = 5_000;
const CACHE_MAX_ENTRIES = 10_000;

/**
 * Resolves the endpoint a job-API request names, for the caller's account only: another account's endpoint is
 * as unknown as a missing one (404). Found endpoints are cached briefly so the hot path is not a query per request;
 * misses are never cached, so a new endpoint works at once.
 */
export class EndpointDirectory {
  private readonly cache = new Map<string, { endpoint: EndpointSummary; expiresAt: number }>();

  constructor(
    private readonly lookup: EndpointLookup,
    private readonly now: () => number = Date.now,
  ) {}

  /** The endpoint, when the principal's account owns it; else NotFoundError. */
  async require(principal: Principal, endpointId: string): Promise<EndpointSummary> {
    return this.requireOwned(principal.accountId, endpointId);
  }

  /** The endpoint, when `accountId` owns it; else NotFoundError. */
  async requireOwned(accountId: string, endpointId: string): Promise<EndpointSummary> {
    const key = `${accountId}:${endpointId}`;
    const cached = this.cache.get(key);
    if (cached && cached.expiresAt > this.now()) return cached.endpoint;
    const row = await this.lookup.findById(accountId, endpointId);
    if (!row) {
      this.cache.delete(key);
      throw new NotFoundError('Endpoint');
    }
    const endpoint = { id: row.id, accountId: row.accountId, executionTimeoutMs: row.executionTimeoutMs };
    if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.clear();
    this.cache.set(key, { endpoint, expiresAt: this.now() + CACHE_TTL_MS });
    return endpoint;
  }
}
