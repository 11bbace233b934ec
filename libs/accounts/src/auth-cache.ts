import type { Principal } from '@runplane/contracts';

/**
 * How long an authenticated key is trusted without asking Postgres again. A key disabled, changed or deleted by
 * ANOTHER process stops working (or changes scope) within this bound; in the process that changed it, at once.
 */
export const AUTH_CACHE_TTL_MS = 5_000;
/** A key in use is looked up again in the background this long before its entry expires (see CredentialCache.get). */
export const AUTH_CACHE_RENEW_AHEAD_MS = 1_000;
const MAX_ENTRIES = 10_000;

interface Entry<V> {
  value: V;
  expiresAt: number;
  /** Set once a renewal of the entry started (see get). */
  refreshing: boolean;
}

/** How a cached value close to expiry is looked up again in the background (see CredentialCache.get). */
export interface Renewal<V> {
  aheadMs: number;
  /** Starts the lookup of `hash`, whose entry holds `value` until it expires. */
  start(hash: string, value: V): void;
}

/**
 * What a credential (API key, worker token) resolved to, by secret hash, so the hot path of every request is not
 * a Postgres query; the job-router's endpoint directory keeps its endpoints in one too. Only found, live values are
 * cached here (AuthCache also remembers unknown API key hashes).
 */
export class CredentialCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private changes = 0;

  constructor(
    private readonly now: () => number,
    private readonly ttlMs: number,
  ) {}

  /**
   * The cached value of a secret hash, or undefined when absent or expired. With `renewal`, an entry expiring within
   * its `aheadMs` has `renewal.start(hash, value)` called once (one request, not every one, has the credential looked up
   * again); the entry is served until it expires all the same.
   */
  get(hash: string, renewal?: Renewal<V>): V | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    const left = entry.expiresAt - this.now();
    if (left <= 0) {
      this.entries.delete(hash);
      return undefined;
    }
    if (renewal && !entry.refreshing && left <= renewal.aheadMs) {
      entry.refreshing = true;
      renewal.start(hash, entry.value);
    }
    return entry.value;
  }

  /** Drops the entry of `hash` (a renewal found its credential gone or revoked). */
  delete(hash: string): void {
    this.entries.delete(hash);
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
    this.entries.set(hash, { value, expiresAt: this.now() + this.ttlMs, refreshing: false });
  }

  /** Forgets every entry whose value matches, after a change, so this process stops trusting the old state at once. */
  protected forgetWhere(matches: (value: V) => boolean): void {
    this.changes += 1;
    for (const [hash, entry] of this.entries) if (matches(entry.value)) this.entries.delete(hash);
  }
}

/**
 * Principals of recently authenticated API keys, and hashes no key has (refused within the same ttl without asking
 * Postgres, so a flood of wrong keys costs no query each). Secrets are 32 random bytes, so a hash unknown now only
 * becomes known through `create` here (which forgets it at once) or a row restored behind the service's back
 * (which works within the ttl). Refused hashes live in their own bounded map: wrong keys cannot evict good ones.
 */
export class AuthCache extends CredentialCache<Principal> {
  private readonly refused = new Map<string, number>();
  private hashChanges = 0;

  constructor(
    private readonly clock: () => number = Date.now,
    private readonly refusedTtlMs: number = AUTH_CACHE_TTL_MS,
  ) {
    super(clock, refusedTtlMs);
  }

  /** True while `hash` is remembered as belonging to no key. */
  isRefused(hash: string): boolean {
    const expiresAt = this.refused.get(hash);
    if (expiresAt === undefined) return false;
    if (expiresAt > this.clock()) return true;
    this.refused.delete(hash);
    return false;
  }

  /** The generation of refused hashes, read before the lookup that may refuse one. */
  refusedGeneration(): number {
    return this.hashChanges;
  }

  /** Remembers that no key has `hash`, unless a key was created since `generation` (the read may predate it). */
  refuse(hash: string, generation: number): void {
    if (generation !== this.hashChanges) return;
    if (this.refused.size >= MAX_ENTRIES) this.refused.clear();
    this.refused.set(hash, this.clock() + this.refusedTtlMs);
  }

  /** Forgets a refused hash once a key has it. */
  forgetRefused(hash: string): void {
    this.hashChanges += 1;
    this.refused.delete(hash);
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
