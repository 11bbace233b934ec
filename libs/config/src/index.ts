export { z } from 'zod';
export { ConfigError, CONFIG_ERROR_EXIT_CODE, loadConfig, loadConfigOrExit } from './load';
export type { ConfigIssue, Env } from './load';
export {
  databaseEnv,
  encryptionEnv,
  envBoolean,
  envInt,
  httpEnv,
  loadBalancerDomainEnv,
  logEnv,
  otelEnv,
  redisEnv,
} from './fragments';
