import {
  type ApiKeyCreateInput,
  type ApiKeyDto,
  type ApiKeyScope,
  type ApiKeyUpdateInput,
  NotFoundError,
  type Principal,
  ValidationError,
} from '@runplane/contracts';
import { type ApiKey, newId } from '@runplane/db';
import { generateSecret, hashSecret, isWellFormedSecret } from './api-key-secret';
import { AUTH_CACHE_RENEW_AHEAD_MS, type AuthCache, processAuthCache, type Renewal } from './auth-cache';
import { SharedLookups } from './shared-lookups';
import type { ApiKeyChanges, ApiKeysRepository } from './api-keys.repository';

/** lastUsedAt is refreshed at most this often per key, so authentication is not a write per request. */
const LAST_USED_RESOLUTION_MS = 60_000;

function toDto(row: ApiKey): ApiKeyDto {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scope: row.scope,
    allowedEndpointIds: [...row.allowedEndpointIds],
    disabled: row.disabled,
    lastUsedAt: row.lastUsedAt ? row.lastUsedAt.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** allowedEndpointIds only mean something for RESTRICTED keys; anything else is a caller mistake. */
function endpointsFor(scope: ApiKeyScope, allowed: string[] | undefined): string[] {
  if (scope !== 'RESTRICTED') {
    if (allowed?.length) throw new ValidationError('allowedEndpointIds: only allowed with scope RESTRICTED');
    return [];
  }
  return [...new Set(allowed ?? [])];
}

/**
 * API key lifecycle and authentication. Authenticated keys are cached (AUTH_CACHE_TTL_MS says how soon
 * a change made elsewhere takes effect); changes made through this service take effect in this process at once.
 */
export class ApiKeysService {
  private readonly lookups = new SharedLookups<Principal | null>();
  /** Renews a key's cache entry in the background; a failed renewal lets the entry expire (the next request asks). */
  private readonly renewal: Renewal<Principal> = {
    aheadMs: AUTH_CACHE_RENEW_AHEAD_MS,
    start: (hash) => void this.lookUp(hash).catch(() => undefined),
  };

  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly cache: AuthCache = processAuthCache,
  ) {}

  /** Creates a key; the returned secret is never retrievable again. */
  async create(accountId: string, input: ApiKeyCreateInput): Promise<{ apiKey: ApiKeyDto; secret: string }> {
    const { secret, prefix, hash } = generateSecret();
    const row = await this.keys.create({
      id: newId(),
      accountId,
      name: input.name,
      prefix,
      hash,
      scope: input.scope,
      allowedEndpointIds: endpointsFor(input.scope, input.allowedEndpointIds),
    });
    this.cache.forgetRefused(hash);
    return { apiKey: toDto(row), secret };
  }

  async list(accountId: string): Promise<ApiKeyDto[]> {
    return (await this.keys.listByAccount(accountId)).map(toDto);
  }

  async get(accountId: string, id: string): Promise<ApiKeyDto> {
    return toDto(await this.require(accountId, id));
  }

  async update(accountId: string, id: string, input: ApiKeyUpdateInput): Promise<ApiKeyDto> {
    const current = await this.require(accountId, id);
    const changes: ApiKeyChanges = { name: input.name, disabled: input.disabled };
    if (input.scope !== undefined || input.allowedEndpointIds !== undefined) {
      const scope = input.scope ?? current.scope;
      changes.scope = scope;
      // A RESTRICTED key keeps its endpoints unless new ones are given; other scopes carry none.
      const kept = scope === 'RESTRICTED' ? current.allowedEndpointIds : undefined;
      changes.allowedEndpointIds = endpointsFor(scope, input.allowedEndpointIds ?? kept);
    }
    const updated = await this.keys.update(accountId, id, changes);
    this.cache.forget(id);
    if (!updated) throw new NotFoundError('API key');
    return toDto(await this.require(accountId, id));
  }

  async delete(accountId: string, id: string): Promise<void> {
    const deleted = await this.keys.delete(accountId, id);
    this.cache.forget(id);
    if (!deleted) throw new NotFoundError('API key');
  }

  /**
   * The principal of an enabled key, or null for a malformed, unknown or disabled one. A key in use is renewed in the
   * background shortly before its cache entry expires (AUTH_CACHE_RENEW_AHEAD_MS), so its requests never wait for
   * Postgres; requests that do wait for one key's lookup share it.
   */
  async authenticate(secret: string): Promise<Principal | null> {
    if (!isWellFormedSecret(secret)) return null;
    const hash = hashSecret(secret);
    const cached = this.cache.get(hash, this.renewal);
    if (cached) return cached;
    if (this.cache.isRefused(hash)) return null;
    return this.lookUp(hash);
  }

  /** The key of `hash` looked up (once for all who ask while it is under way), and its answer cached. */
  private lookUp(hash: string): Promise<Principal | null> {
    return this.lookups.run(hash, async () => {
      const generation = this.cache.generation();
      const refusedGeneration = this.cache.refusedGeneration();
      const row = await this.keys.findByHash(hash);
      if (!row) this.cache.refuse(hash, refusedGeneration);
      if (!row || row.disabled) {
        this.cache.delete(hash);
        return null;
      }
      // Refreshed on lookups only, so lastUsedAt is accurate to LAST_USED_RESOLUTION_MS + the cache ttl.
      const now = new Date();
      if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
        await this.keys.touchLastUsed(row.id, now);
      }
      const principal = {
        accountId: row.accountId,
        apiKeyId: row.id,
        scope: row.scope,
        allowedEndpointIds: row.allowedEndpointIds,
      };
      this.cache.set(hash, principal, generation);
      return principal;
    });
  }

  private async require(accountId: string, id: string): Promise<ApiKey> {
    const row = await this.keys.findById(accountId, id);
    if (!row) throw new NotFoundError('API key');
    return row;
  }
}
