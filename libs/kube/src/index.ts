export { createKubeClients, loadKubeConfig } from './client';
export type { CreateKubeClientsOptions, KubeClients, KubeConfigSource } from './client';
export { KubeRateLimiter, RateLimiterClosedError } from './rate-limiter';
export type { RateLimitOptions } from './rate-limiter';
export { isConflict, isGone, isNotFound, kubeErrorMessage, kubeStatusOf } from './errors';
export { applyObject, mergePatchOptions, strategicMergePatchOptions } from './patch';
