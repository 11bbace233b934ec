import type { DbClient } from '@runplane/db';
import type { WorkerTokenCache } from './worker-token-cache';
import { WorkerTokensRepository } from './worker-tokens.repository';
import { WorkerTokensService } from './worker-tokens.service';

export {
  WorkerTokensService,
  isWorkerToken,
  WORKER_TOKEN_REFRESH_AHEAD_MS,
  type WorkerIdentity,
  type WorkerTokenSummary,
} from './worker-tokens.service';
export { WorkerTokensRepository, type WorkerTokenRow } from './worker-tokens.repository';
export { processWorkerTokenCache, WORKER_TOKEN_CACHE_TTL_MS, WorkerTokenCache } from './worker-token-cache';

/** The worker-token service over one database client (job-router, scheduler, operator CLI); the cache defaults to the process's. */
export function createWorkerTokensService(db: DbClient, cache?: WorkerTokenCache): WorkerTokensService {
  return new WorkerTokensService(new WorkerTokensRepository(db), cache);
}
