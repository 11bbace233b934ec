import { envInt, loadBalancerDomainEnv } from '@runplane/config';

const MiB = 1024 * 1024;

/**
 * Load-balancing endpoints: requests to `<endpointId>.<RUNPLANE_LB_DOMAIN>` are proxied to the endpoint's workers.
 * Without RUNPLANE_LB_DOMAIN no request is proxied.
 */
export const loadBalancerEnv = {
  ...loadBalancerDomainEnv,
  /** How long a request waits for a ready worker (scale from zero) before it is answered 503. */
  LB_WAIT_MS: envInt({ min: 0, max: 600_000, default: 60_000 }),
  /** Largest request body proxied to a worker (bytes); a larger one is answered 413. */
  LB_MAX_BODY_BYTES: envInt({ min: 1024, max: 64 * 1024 * MiB, default: 1024 * MiB }),
  /** How often the workers of an endpoint with traffic are re-read and health-checked. */
  LB_REFRESH_INTERVAL_MS: envInt({ min: 50, max: 60_000, default: 1_000 }),
  /** How long a worker's health check may take before it counts as unanswered. */
  LB_HEALTH_TIMEOUT_MS: envInt({ min: 50, max: 60_000, default: 2_000 }),
  /** Longest silence of a worker's connection during a request (no byte either way) before the request fails. */
  LB_UPSTREAM_IDLE_TIMEOUT_MS: envInt({ min: 1_000, max: 3_600_000, default: 330_000 }),
};
