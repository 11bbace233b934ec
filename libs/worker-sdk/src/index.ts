export { runWorker } from './worker';
export { resolveSettings, type WorkerSettings } from './settings';
export { protocolUrlsFor, protocolUrlsFromEnv, WorkerConfigError } from './urls';
export { SDK_VERSION } from './transport';
export type { Concurrency, HandlerContext, JobHandler, ProtocolUrls, WorkerJob, WorkerOptions } from './types';
