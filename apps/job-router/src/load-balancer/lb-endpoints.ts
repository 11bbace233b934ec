import { NotFoundError } from '@runplane/contracts';
import type { LbEndpointRow } from '@runplane/endpoints';

/** Finds an account's endpoint (the endpoints lib's LoadBalancerUpstreamsRepository, wired by the module). */
export interface LbEndpointLookup {
  findEndpoint(accountId: string, id: string): Promise<LbEndpointRow | null>;
}

/** How long a found load-balancing endpoint is trusted without asking Postgres again. */
const CACHE_TTL_MS = 5_000;
const CACHE_MAX_ENTRIES = 10_000;

/**
 * Admits load-balancing requests only to the caller's own LOAD_BALANCER endpoints: another account's endpoint, a
 * missing one and a queue endpoint are all 404. Hits are cached briefly (the hot path is no query per request);
 * misses never, so a new endpoint works at once.
 */
export class LbEndpointDirectory {
  private readonly cache = new Map<string, number>();

  constructor(
    private readonly lookup: LbEndpointLookup,
    private readonly now: () => number = Date.now,
  ) {}

  /** Resolves when `accountId` owns the load-balancing endpoint; else NotFoundError. */
  async require(accountId: string, endpointId: string): Promise<void> {
    const key = `${accountId}:${endpointId}`;
    if ((this.cache.get(key) ?? 0) > this.now()) return;
    const row = await this.lookup.findEndpoint(accountId, endpointId);
    if (!row || row.type !== 'LOAD_BALANCER') {
      this.cache.delete(key);
      throw new NotFoundError('Endpoint');
    }
    if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.clear();
    this.cache.set(key, this.now() + CACHE_TTL_MS);
  }
}
