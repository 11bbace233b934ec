import { encryptionEnv, loadConfigOrExit } from '@runplane/config';
import { serviceEnvSchema } from '@runplane/http';

/** Gateway environment: the common service settings plus the key that seals secrets at rest. */
export const gatewayEnvSchema = serviceEnvSchema(8080).extend(encryptionEnv);
/** Parsed gateway configuration. */
export type GatewayConfig = ReturnType<typeof gatewayEnvSchema.parse>;

/** Parses the process environment once; a bad value stops the process with a message naming it. */
export function loadGatewayConfig(): GatewayConfig {
  return loadConfigOrExit(gatewayEnvSchema, process.env);
}
