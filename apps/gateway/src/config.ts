import { z } from 'zod';
import { encryptionEnv, envInt, loadConfigOrExit } from '@runplane/config';
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

/** Gateway environment: the common service settings, the key that seals secrets at rest and the v2 quotas. */
export const gatewayEnvSchema = serviceEnvSchema(8080).extend(encryptionEnv).extend(v2RateLimitEnv).extend(jobApiEnv);
/** Parsed gateway configuration. */
export type GatewayConfig = ReturnType<typeof gatewayEnvSchema.parse>;

/** Parses the process environment once; a bad value stops the process with a message naming it. */
export function loadGatewayConfig(): GatewayConfig {
  return loadConfigOrExit(gatewayEnvSchema, process.env);
}
