import { CredentialCache } from '../auth-cache';
import type { WorkerIdentity } from './worker-tokens.service';

/**
 * How long a checked worker token is trusted without asking Postgres again: a token revoked by ANOTHER process
 * stops working within this bound; in the process that revoked it, at once.
 */
export const WORKER_TOKEN_CACHE_TTL_MS = 5_000;

function sameWorker(a: WorkerIdentity, b: WorkerIdentity): boolean {
  return a.accountId === b.accountId && a.endpointId === b.endpointId && a.workerId === b.workerId;
}

/** Identities of recently checked worker tokens, so a worker's take, done and ping calls are not a query each. */
export class WorkerTokenCache extends CredentialCache<WorkerIdentity> {
  constructor(now: () => number = Date.now, ttlMs: number = WORKER_TOKEN_CACHE_TTL_MS) {
    super(now, ttlMs);
  }

  /** Forgets every cached token of a worker after its tokens were revoked. */
  forget(worker: WorkerIdentity): void {
    this.forgetWhere((identity) => sameWorker(identity, worker));
  }

  /** Forgets every cached token of several workers of one endpoint (one sweep of the cache). */
  forgetWorkers(accountId: string, endpointId: string, workerIds: ReadonlySet<string>): void {
    this.forgetWhere(
      (identity) =>
        identity.accountId === accountId && identity.endpointId === endpointId && workerIds.has(identity.workerId),
    );
  }
}

/** One cache per process, shared by every WorkerTokensService in it, so a revocation anywhere in it applies at once. */
export const processWorkerTokenCache = new WorkerTokenCache();
