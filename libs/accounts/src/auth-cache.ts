import type { Principal } from '@runplane/contracts';

/**
 * How long an authenticated key is trusted without asking Postgres again. A key disabled, changed or deleted by
 * ANOTHER process stops working (or changes scope) within this bound; in the process that changed it, at once.
 */
export const AUTH_CACHE_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

interface Entry {
  principal: Principal;
  expiresAt: number;
}

/**
 * Principals of recently authenticated keys by secret hash, so the hot path of every API request is not a
 * Postgres query. Only found, enabled keys are cached: an unknown secret always reaches the database.
 */
export class AuthCache {
  private readonly entries = new Map<string, Entry>();
  private changes = 0;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly ttlMs: number = AUTH_CACHE_TTL_MS,
  ) {}

  /** The cached principal of a secret hash, or undefined when absent or expired. */
  get(hash: string): Principal | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (entry.expiresAt > this.now()) return entry.principal;
    this.entries.delete(hash);
    return undefined;
  }

  /** Bumped by every forget(): a lookup that started before a change must not cache what it read. */
  generation(): number {
    return this.changes;
  }

  /** Caches a principal read at `generation`; dropped when a key changed since, as the read may predate it. */
  set(hash: string, principal: Principal, generation: number): void {
    if (generation !== this.changes) return;
    // Crude but bounded: a flood of distinct keys costs a re-query each, never unbounded memory.
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(hash, { principal, expiresAt: this.now() + this.ttlMs });
  }

  /** Forgets a key (by id) after it was changed or deleted, so this process stops trusting the old state at once. */
  forget(apiKeyId: string): void {
    this.changes += 1;
    for (const [hash, entry] of this.entries) if (entry.principal.apiKeyId === apiKeyId) this.entries.delete(hash);
  }
}

/**
 * One cache per process, shared by every ApiKeysService in it (the gateway and job-router may run in one
 * process), so a key disabled through any of them stops working in all of them immediately.
 */
export const processAuthCache = new AuthCache();
