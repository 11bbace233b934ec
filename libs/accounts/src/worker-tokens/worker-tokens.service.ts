import DataLoader from 'dataloader';
import { randomBytes } from 'node:crypto';
import { NotFoundError, ValidationError } from '@runplane/contracts';
import { newId } from '@runplane/db';
import { processWorkerTokenCache, type WorkerTokenCache } from './worker-token-cache';
import type { WorkerTokenRow, WorkerTokensRepository } from './worker-tokens.repository';
import type { Renewal } from '../auth-cache';
import { hashSecret } from '../api-key-secret';

const TOKEN_PREFIX = 'rpw_';
const TOKEN_PATTERN = /^rpw_[A-Za-z0-9_-]{43}$/;
const WORKER_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Who a valid worker token speaks for. */
export interface WorkerIdentity {
  accountId: string;
  endpointId: string;
  workerId: string;
}

/** A worker token as operators see it: never the token or its hash. */
export interface WorkerTokenSummary {
  id: string;
  endpointId: string;
  workerId: string;
  createdAt: Date;
  revokedAt: Date | null;
}

function toSummary(row: WorkerTokenRow): WorkerTokenSummary {
  return {
    id: row.id,
    endpointId: row.endpointId,
    workerId: row.workerId,
    createdAt: row.createdAt,
    revokedAt: row.revokedAt,
  };
}

/** sha-256 hex: tokens are 256-bit random, like API keys, so a plain hash is not brute-forceable. */
const hashToken = hashSecret;

/**
 * A cached token this close to its expiry is looked up again in the background while its requests are served from
 * the cache, so a busy worker never waits for the lookup and the lookups of many workers share one query.
 */
export const WORKER_TOKEN_REFRESH_AHEAD_MS = 1_000;
/** How long background lookups gather before their one query. */
export const WORKER_TOKEN_REFRESH_WINDOW_MS = 50;
/** Most hashes in one lookup query. */
const LOOKUP_BATCH = 500;

function identityOf(row: WorkerTokenRow): WorkerIdentity {
  return { accountId: row.accountId, endpointId: row.endpointId, workerId: row.workerId };
}

/** True when a string has the shape of a worker token (checked before any database lookup). */
export function isWorkerToken(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}

/**
 * Issues and checks per-worker credentials: stored hashed, valid for one endpoint's worker routes as one worker id.
 * Checked tokens are cached (WORKER_TOKEN_CACHE_TTL_MS bounds how soon a revocation elsewhere takes effect), and
 * looked up in batches: the tokens not cached that requests present in one turn of the event loop in one query, the
 * cached ones due to expire (WORKER_TOKEN_REFRESH_AHEAD_MS) in one query per WORKER_TOKEN_REFRESH_WINDOW_MS. A
 * thousand workers thus cost Postgres a few queries per cache ttl, not a thousand.
 */
export class WorkerTokensService {
  /** Lookups a request waits for. */
  private readonly lookups = new DataLoader((hashes: readonly string[]) => this.findLive(hashes), {
    cache: false,
    maxBatchSize: LOOKUP_BATCH,
  });
  /** Background lookups of cached tokens due to expire. */
  private readonly refreshes = new DataLoader((hashes: readonly string[]) => this.findLive(hashes), {
    cache: false,
    maxBatchSize: LOOKUP_BATCH,
    // A renewal still gathering never keeps a process alive.
    batchScheduleFn: (run) => setTimeout(run, WORKER_TOKEN_REFRESH_WINDOW_MS).unref(),
  });
  private readonly renewal: Renewal<WorkerIdentity> = {
    aheadMs: WORKER_TOKEN_REFRESH_AHEAD_MS,
    start: (hash) => this.refresh(hash),
  };

  constructor(
    private readonly tokens: WorkerTokensRepository,
    private readonly cache: WorkerTokenCache = processWorkerTokenCache,
  ) {}

  /** Issues a token for a worker of an endpoint; the token is returned this once only. */
  async issue(endpointId: string, workerId: string): Promise<{ token: string; identity: WorkerIdentity }> {
    if (!WORKER_ID.test(workerId)) throw new ValidationError('workerId: 1-128 letters, digits, ".", "_" or "-"');
    const accountId = await this.tokens.findEndpointAccount(endpointId);
    if (!accountId) throw new NotFoundError('Endpoint');
    const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
    await this.tokens.create({ id: newId(), accountId, endpointId, workerId, hash: hashToken(token) });
    return { token, identity: { accountId, endpointId, workerId } };
  }

  /**
   * Replaces the tokens of several workers of one endpoint: revokes each worker's earlier tokens and issues one new
   * token each, in two statements (a scale-up starts hundreds of workers at once). Tokens come back in `workerIds` order.
   */
  async reissueMany(endpointId: string, workerIds: string[]): Promise<{ token: string; identity: WorkerIdentity }[]> {
    const invalid = workerIds.find((workerId) => !WORKER_ID.test(workerId));
    if (invalid !== undefined) throw new ValidationError('workerId: 1-128 letters, digits, ".", "_" or "-"');
    const accountId = await this.tokens.findEndpointAccount(endpointId);
    if (!accountId) throw new NotFoundError('Endpoint');
    await this.tokens.revokeWorkers(accountId, endpointId, workerIds, new Date());
    this.cache.forgetWorkers(accountId, endpointId, new Set(workerIds));
    const issued = workerIds.map((workerId) => ({
      workerId,
      token: TOKEN_PREFIX + randomBytes(32).toString('base64url'),
    }));
    await this.tokens.createMany(
      issued.map(({ workerId, token }) => ({ id: newId(), accountId, endpointId, workerId, hash: hashToken(token) })),
    );
    return issued.map(({ workerId, token }) => ({ token, identity: { accountId, endpointId, workerId } }));
  }

  /** The worker a live token belongs to, or null for a malformed, unknown or revoked one. */
  async authenticate(token: string): Promise<WorkerIdentity | null> {
    if (!isWorkerToken(token)) return null;
    const hash = hashToken(token);
    const cached = this.cache.get(hash, this.renewal);
    if (cached) return cached;
    const generation = this.cache.generation();
    const identity = await this.lookups.load(hash);
    if (identity) this.cache.set(hash, identity, generation);
    return identity;
  }

  /** Looks a cached token up again in the background: its entry is renewed, or dropped if it is gone or revoked. */
  private refresh(hash: string): void {
    const generation = this.cache.generation();
    void this.refreshes.load(hash).then(
      (identity) => (identity ? this.cache.set(hash, identity, generation) : this.cache.delete(hash)),
      // The entry expires as it would have; the first request after that looks the token up and meets the error.
      () => undefined,
    );
  }

  /** The identity of each hash's live token, in the hashes' order (null for an unknown or revoked one). */
  private async findLive(hashes: readonly string[]): Promise<(WorkerIdentity | null)[]> {
    const live = new Map<string, WorkerIdentity>();
    for (const row of await this.tokens.findByHashes(hashes)) if (!row.revokedAt) live.set(row.hash, identityOf(row));
    return hashes.map((hash) => live.get(hash) ?? null);
  }

  /** Revokes the tokens of a worker (e.g. when the scheduler removes it); at once in this process. */
  async revoke(identity: WorkerIdentity): Promise<number> {
    const count = await this.tokens.revokeWorker(
      identity.accountId,
      identity.endpointId,
      identity.workerId,
      new Date(),
    );
    this.cache.forget(identity);
    return count;
  }

  /** Revokes the live tokens of a worker named by endpoint and worker id (operators); 404 for an unknown endpoint. */
  async revokeWorker(endpointId: string, workerId: string): Promise<number> {
    const accountId = await this.tokens.findEndpointAccount(endpointId);
    if (!accountId) throw new NotFoundError('Endpoint');
    return this.revoke({ accountId, endpointId, workerId });
  }

  /** Every token issued for an endpoint (live and revoked), for operators; 404 when the endpoint does not exist. */
  async list(endpointId: string): Promise<WorkerTokenSummary[]> {
    if (!(await this.tokens.findEndpointAccount(endpointId))) throw new NotFoundError('Endpoint');
    return (await this.tokens.listByEndpoint(endpointId)).map(toSummary);
  }

  /** Revokes one token by id (idempotent: an already revoked token keeps its first revocation time); at once in this process. */
  async revokeToken(tokenId: string): Promise<WorkerTokenSummary> {
    const row = await this.tokens.findById(tokenId);
    if (!row) throw new NotFoundError('Worker token');
    const at = new Date();
    const revokedNow = await this.tokens.revokeById(tokenId, at);
    // The cache is keyed by hash and holds identities, so forget the worker's entries (its other live tokens just re-query).
    this.cache.forget(identityOf(row));
    if (revokedNow) return toSummary({ ...row, revokedAt: at });
    return toSummary((await this.tokens.findById(tokenId)) ?? row);
  }
}
