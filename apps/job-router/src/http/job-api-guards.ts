import type { Principal } from '@runplane/contracts';
import {
  type ApiKeyAuthenticator,
  authorizeApiKey,
  type FastifyRequest,
  type Release,
  type RouteAccess,
  type RouteGuards,
} from '@runplane/http';
import type { EndpointLimits } from '../limits/endpoint-limits';
import type { LimitedOperation } from '../limits/limit-table';
import type { WorkerAuthenticator } from '../worker/worker-auth';
import type { WorkerIdentity } from '../worker-tokens';

/** What a client route of the job API does (the key scopes it admits) and the limits it counts against, if any. */
export interface ClientPolicy {
  readonly access: RouteAccess;
  readonly limit?: LimitedOperation;
  /**
   * The route submits a job, and the script that records it counts the limit (JobApiService, JobRateLimiter.admit):
   * one round trip for both. The guard counts nothing for it.
   */
  readonly limitedOnSubmit?: boolean;
}

/** Path parameters of the job API's routes. */
interface JobRouteParams {
  endpointId?: string;
  workerId?: string;
}

const NOTHING_HELD: Promise<Release | undefined> = Promise.resolve(undefined);

const paramsOf = (request: FastifyRequest): JobRouteParams => request.params as JobRouteParams;

/**
 * The client routes' guards: an API key whose scope covers what the route does on the path's endpoint, then that
 * endpoint's limits of the route's operation (EndpointLimits finds the key's own endpoint before anything is counted,
 * and a concurrency slot is held until the answer is ready), unless the route's submission counts them.
 */
export class ClientGuards implements RouteGuards<ClientPolicy, Principal> {
  constructor(
    private readonly apiKeys: ApiKeyAuthenticator,
    private readonly limits: EndpointLimits,
  ) {}

  authenticate(request: FastifyRequest, policy: ClientPolicy): Promise<Principal> {
    return authorizeApiKey(this.apiKeys, request.headers.authorization, policy.access, paramsOf(request).endpointId);
  }

  limit(principal: Principal, request: FastifyRequest, policy: ClientPolicy): Promise<Release | undefined> {
    if (!policy.limit || policy.limitedOnSubmit) return NOTHING_HELD;
    return this.limits.acquire(principal, paramsOf(request).endpointId ?? '', policy.limit);
  }
}

/** The only policy of the worker protocol: a worker credential for the path's endpoint and worker id. */
export type WorkerPolicy = 'worker';

/** The worker routes' guard: the worker is authenticated for the path's endpoint and worker id (WorkerAuthenticator). */
export class WorkerGuards implements RouteGuards<WorkerPolicy, WorkerIdentity> {
  constructor(private readonly auth: WorkerAuthenticator) {}

  authenticate(request: FastifyRequest): Promise<WorkerIdentity> {
    const { endpointId = '', workerId = '' } = paramsOf(request);
    return this.auth.authenticate(request.headers.authorization, endpointId, workerId);
  }
}
