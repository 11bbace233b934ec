import { z } from 'zod';
import { encryptionEnv, envInt, loadBalancerDomainEnv, loadConfigOrExit } from '@runplane/config';
import { serviceEnvSchema } from '@runplane/http';

/** Per-account quotas of the management API v2 (requests per window; 0 = no limit in that window). */
const v2RateLimitEnv = {
  V2_RATE_LIMIT_PER_MINUTE: envInt({ min: 0, default: 600 }),
  V2_RATE_LIMIT_PER_HOUR: envInt({ min: 0, default: 30_000 }),
  V2_RATE_LIMIT_PER_DAY: envInt({ min: 0, default: 500_000 }),
};

/** Public base URL of this installation's job API (job-router), for the requestUrls of /v2/serverless endpoints. */
const jobApiEnv = {
  PUBLIC_JOB_API_URL: z.url({ error: 'expected an http(s) URL' }).default('http://127.0.0.1:8081'),
};

/**
 * Where load-balancing endpoints are called, for their v2 `requestUrls` (`<scheme>://<endpointId>.<domain>`): the same
 * RUNPLANE_LB_DOMAIN as the job-router's, which serves those hosts.
 */
const loadBalancerEnv = {
  ...loadBalancerDomainEnv,
  RUNPLANE_LB_SCHEME: z.enum(['https', 'http']).default('https'),
};

/** Gateway environment: the common service settings, the key that seals secrets at rest and the v2 quotas. */
export const gatewayEnvSchema = serviceEnvSchema(8080)
  .extend(encryptionEnv)
  .extend(v2RateLimitEnv)
  .extend(jobApiEnv)
  .extend(loadBalancerEnv);
/** Parsed gateway configuration. */
export type GatewayConfig = ReturnType<typeof gatewayEnvSchema.parse>;

/** Scheme and domain (with a port, if any) of load-balancing endpoints' URLs. */
export interface LoadBalancerOrigin {
  scheme: string;
  domain: string;
}

/**
 * RUNPLANE_LB_DOMAIN with RUNPLANE_LB_SCHEME; without it, the job API's own host (as RunPod serves `<id>.api.runpod.ai`
 * beside `api.runpod.ai`), `localhost` for an IP address, with the job API's scheme and port.
 */
export function loadBalancerOrigin(
  config: Pick<GatewayConfig, 'RUNPLANE_LB_DOMAIN' | 'RUNPLANE_LB_SCHEME' | 'PUBLIC_JOB_API_URL'>,
): LoadBalancerOrigin {
  if (config.RUNPLANE_LB_DOMAIN) return { scheme: config.RUNPLANE_LB_SCHEME, domain: config.RUNPLANE_LB_DOMAIN };
  const url = new URL(config.PUBLIC_JOB_API_URL);
  const literal = /^[\d.]+$/.test(url.hostname) || url.hostname.startsWith('[');
  const host = literal ? 'localhost' : url.hostname;
  return { scheme: url.protocol.slice(0, -1), domain: url.port ? `${host}:${url.port}` : host };
}

/** Parses the process environment once; a bad value stops the process with a message naming it. */
export function loadGatewayConfig(): GatewayConfig {
  return loadConfigOrExit(gatewayEnvSchema, process.env);
}
