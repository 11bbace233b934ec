/** Worker tokens live in @runplane/accounts (the scheduler issues them too); re-exported for the job-router's importers. */
export {
  createWorkerTokensService,
  isWorkerToken,
  WORKER_TOKEN_CACHE_TTL_MS,
  WorkerTokenCache,
  WorkerTokensService,
  type WorkerIdentity,
  type WorkerTokenSummary,
} from '@runplane/accounts';
