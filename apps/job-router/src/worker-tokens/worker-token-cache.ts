import type { WorkerIdentity } from './worker-tokens.service';

/**
 * How long a checked worker token is trusted without asking Postgres again: a token revoked by ANOTHER process
 * stops working within this bound; in the process that revoked it, at once.
 */
export const WORKER_TOKEN_CACHE_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

interface Entry {
  identity: WorkerIdentity;
  expiresAt: number;
}

function sameWorker(a: WorkerIdentity, b: WorkerIdentity): boolean {
  return a.accountId === b.accountId && a.endpointId === b.endpointId && a.workerId === b.workerId;
}

/**
 * Identities of recently checked worker tokens by token hash, so a worker's take, done and ping calls are not a
 * Postgres query each. Only live tokens are cached: an unknown token always reaches the database.
 */
export class WorkerTokenCache {
  private readonly entries = new Map<string, Entry>();
  private changes = 0;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly ttlMs: number = WORKER_TOKEN_CACHE_TTL_MS,
  ) {}

  /** The cached identity of a token hash, or undefined when absent or expired. */
  get(hash: string): WorkerIdentity | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (entry.expiresAt > this.now()) return entry.identity;
    this.entries.delete(hash);
    return undefined;
  }

  /** Bumped by every forget(): a lookup that started before a revocation must not cache what it read. */
  generation(): number {
    return this.changes;
  }

  /** Caches an identity read at `generation`; dropped when a token was revoked since, as the read may predate it. */
  set(hash: string, identity: WorkerIdentity, generation: number): void {
    if (generation !== this.changes) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(hash, { identity, expiresAt: this.now() + this.ttlMs });
  }

  /** Forgets every cached token of a worker after its tokens were revoked. */
  forget(worker: WorkerIdentity): void {
    this.changes += 1;
    for (const [hash, entry] of this.entries) if (sameWorker(entry.identity, worker)) this.entries.delete(hash);
  }
}

/** One cache per process, shared by every WorkerTokensService in it, so a revocation anywhere in it applies at once. */
export const processWorkerTokenCache = new WorkerTokenCache();
