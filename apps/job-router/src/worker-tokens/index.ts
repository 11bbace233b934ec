import type { DbClient } from '@runplane/db';
import { WorkerTokensRepository } from './worker-tokens.repository';
import { WorkerTokensService } from './worker-tokens.service';

export { WorkerTokensService, isWorkerToken, type WorkerIdentity } from './worker-tokens.service';

/** The worker-token service over one database client (job-router and the operator CLI). */
export function createWorkerTokensService(db: DbClient): WorkerTokensService {
  return new WorkerTokensService(new WorkerTokensRepository(db));
}
