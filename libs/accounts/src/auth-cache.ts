import type { Principal } from '@runplane/contracts';

/**
 * How long an authenticated key is trusted without asking Postgres again. A key disabled, changed or deleted by
 * ANOTHER process stops working (or changes scope) within this bound; in the process that changed it, at once.
 */
export const AUTH_CACHE_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

interface Entry<V> {
  value: V;
  expiresAt: number;
}

/**
 * What a credential (API key, worker token) resolved to, by secret hash, so the hot path of every request is not
 * a Postgres query. Only found, live credentials are cached: an unknown secret always reaches the database.
 */
export class CredentialCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private changes = 0;

  constructor(
    private readonly now: () => number,
    private readonly ttlMs: number,
  ) {}

  /** The cached value of a secret hash, or undefined when absent or expired. */
  get(hash: string): V | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (entry.expiresAt > this.now()) return entry.value;
    this.entries.delete(hash);
    return undefined;
  }

  /** Bumped by every forget: a lookup that started before a change must not cache what it read. */
  generation(): number {
    return this.changes;
  }

  /** Caches a value read at `generation`; dropped when a credential changed since, as the read may predate it. */
  set(hash: string, value: V, generation: number): void {
    if (generation !== this.changes) return;
    // Crude but bounded: a flood of distinct secrets costs a re-query each, never unbounded memory.
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(hash, { value, expiresAt: this.now() + this.ttlMs });
  }

  /** Forgets every entry whose value matches, after a change, so this process stops trusting the old state at once. */
  protected forgetWhere(matches: (value: V) => boolean): void {
    this.changes += 1;
    for (const [hash, entry] of this.entries) if (matches(entry.value)) this.entries.delete(hash);
  }
}

/** Principals of recently authenticated API keys. */
export class AuthCache extends CredentialCache<Principal> {
  constructor(now: () => number = Date.now, ttlMs: number = AUTH_CACHE_TTL_MS) {
    super(now, ttlMs);
  }

  /** Forgets a key (by id) after it was changed or deleted. */
  forget(apiKeyId: string): void {
    this.forgetWhere((principal) => principal.apiKeyId === apiKeyId);
  }
}

/**
 * One cache per process, shared by every ApiKeysService in it (the gateway and job-router may run in one
 * process), so a key disabled through any of them stops working in all of them immediately.
 */
export const processAuthCache = new AuthCache();
