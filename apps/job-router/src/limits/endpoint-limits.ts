import type { Principal } from '@runplane/contracts';
import type { EndpointDirectory } from '../client/endpoint-directory';
import type { JobRateLimiter, Release } from './job-rate-limiter';
import type { LimitedOperation } from './limit-table';

/**
 * An endpoint's rate and concurrency budget, charged only for requests its owner's keys may make: the endpoint is
 * looked up for the caller's account before anything is counted, so another account's or a made-up endpoint id
 * answers 404 without using the owner's budget or creating counters in Redis. A public model's callers each have
 * their own budget on it (the base limits), never the owner's.
 */
export class EndpointLimits {
  constructor(
    private readonly endpoints: EndpointDirectory,
    private readonly limiter: JobRateLimiter,
  ) {}

  /** Counts one request of the principal on its own endpoint; NotFoundError, RateLimitedError, or the slot's release. */
  async acquire(principal: Principal, endpointId: string, operation: LimitedOperation): Promise<Release> {
    const endpoint = await this.endpoints.require(principal, endpointId);
    return this.limiter.acquire(endpoint.id, operation, endpoint.publicModel ? principal.accountId : undefined);
  }
}
