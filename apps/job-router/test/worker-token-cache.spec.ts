import { WORKER_TOKEN_REFRESH_AHEAD_MS, WorkerTokensRepository } from '@runplane/accounts';
import { type DatabaseClient, newId } from '@runplane/db';
import { createTestStores, FakeClock, pollUntil, type TestStores } from '@runplane/testing';
import {
  createWorkerTokensService,
  WORKER_TOKEN_CACHE_TTL_MS,
  WorkerTokenCache,
  WorkerTokensService,
} from '../src/worker-tokens';
import { seedEndpoint } from './seed-endpoint';

let stores: TestStores;
let db: DatabaseClient;

beforeAll(async () => {
  stores = await createTestStores('jr-worker-token-cache');
  db = stores.db;
});

afterAll(() => stores.close());

/** Two services on one cache stand for two parts of one process; the clock drives expiry. */
async function setup() {
  const clock = new FakeClock();
  const cache = new WorkerTokenCache(() => clock.now());
  const issuer = createWorkerTokensService(db, cache);
  const router = createWorkerTokensService(db, cache);
  const account = await db.account.create({ data: { id: newId(), name: 'worker-token-cache' } });
  const endpoint = await seedEndpoint(db, account.id);
  const { token, identity } = await issuer.issue(endpoint.id, 'w-1');
  return { clock, issuer, router, token, identity };
}

describe('WorkerTokensService cache', () => {
  it('trusts a checked token for the cache ttl, so a revocation by another process applies within it', async () => {
    const { clock, router, token, identity } = await setup();
    expect(await router.authenticate(token)).toEqual(identity);
    await db.workerToken.updateMany({ where: { endpointId: identity.endpointId }, data: { revokedAt: new Date() } });
    clock.advance(WORKER_TOKEN_CACHE_TTL_MS - 1);
    expect(await router.authenticate(token)).toEqual(identity);
    clock.advance(1);
    expect(await router.authenticate(token)).toBeNull();
  });

  it('stops trusting a token revoked in this process at once', async () => {
    const { issuer, router, token, identity } = await setup();
    expect(await router.authenticate(token)).toEqual(identity);
    expect(await issuer.revoke(identity)).toBe(1);
    expect(await router.authenticate(token)).toBeNull();
  });

  it('never caches an unknown token', async () => {
    const { router, token, identity } = await setup();
    const row = await db.workerToken.findFirstOrThrow({ where: { endpointId: identity.endpointId } });
    await db.workerToken.delete({ where: { id: row.id } });
    expect(await router.authenticate(token)).toBeNull();
    await db.workerToken.create({ data: row });
    expect(await router.authenticate(token)).toEqual(identity);
  });
});

describe('WorkerTokensService operator methods', () => {
  it('lists the tokens of an endpoint, live and revoked, without their hashes', async () => {
    const { issuer, identity } = await setup();
    await issuer.issue(identity.endpointId, 'w-2');
    await issuer.revoke(identity);
    const tokens = await issuer.list(identity.endpointId);
    expect(tokens).toEqual([
      {
        id: expect.any(String),
        endpointId: identity.endpointId,
        workerId: 'w-1',
        createdAt: expect.any(Date),
        revokedAt: expect.any(Date),
      },
      {
        id: expect.any(String),
        endpointId: identity.endpointId,
        workerId: 'w-2',
        createdAt: expect.any(Date),
        revokedAt: null,
      },
    ]);
    await expect(issuer.list('no-such-endpoint')).rejects.toThrow('Endpoint not found');
  });

  it('revokes one token by id: at once in this process, within the cache ttl in another', async () => {
    const { clock, issuer, router, token, identity } = await setup();
    // A process elsewhere, with its own cache, has checked the token too.
    const elsewhere = createWorkerTokensService(db, new WorkerTokenCache(() => clock.now()));
    expect(await router.authenticate(token)).toEqual(identity);
    expect(await elsewhere.authenticate(token)).toEqual(identity);
    const [row] = await issuer.list(identity.endpointId);
    const revoked = await issuer.revokeToken(row!.id);
    expect(revoked).toMatchObject({ id: row!.id, workerId: 'w-1', revokedAt: expect.any(Date) });
    expect(await router.authenticate(token)).toBeNull();
    expect(await elsewhere.authenticate(token)).toEqual(identity);
    clock.advance(WORKER_TOKEN_CACHE_TTL_MS);
    expect(await elsewhere.authenticate(token)).toBeNull();
    // Idempotent: the first revocation time stays.
    expect((await issuer.revokeToken(row!.id)).revokedAt).toEqual(revoked.revokedAt);
    await expect(issuer.revokeToken('no-such-token')).rejects.toThrow('Worker token not found');
  });

  it('revokes a worker by endpoint and worker id; unknown endpoints are 404', async () => {
    const { issuer, router, token, identity } = await setup();
    expect(await issuer.revokeWorker(identity.endpointId, 'w-1')).toBe(1);
    expect(await router.authenticate(token)).toBeNull();
    await expect(issuer.revokeWorker('no-such-endpoint', 'w-1')).rejects.toThrow('Endpoint not found');
  });

  it('reissues the tokens of many workers at once: old ones stop at once, new ones authenticate, bad input writes nothing', async () => {
    const { issuer, router, token, identity } = await setup();
    expect(await router.authenticate(token)).toEqual(identity);
    const issued = await issuer.reissueMany(identity.endpointId, ['w-1', 'w-2', 'w-3']);
    expect(issued.map((entry) => entry.identity.workerId)).toEqual(['w-1', 'w-2', 'w-3']);
    expect(new Set(issued.map((entry) => entry.token)).size).toBe(3);
    expect(await router.authenticate(token)).toBeNull();
    for (const entry of issued)
      expect(await router.authenticate(entry.token)).toEqual({ ...identity, workerId: entry.identity.workerId });
    const live = await db.workerToken.count({ where: { endpointId: identity.endpointId, revokedAt: null } });
    expect(live).toBe(3);
    await expect(issuer.reissueMany(identity.endpointId, ['w-4', 'bad id'])).rejects.toThrow(/^workerId: /);
    await expect(issuer.reissueMany('no-such-endpoint', ['w-5'])).rejects.toThrow(/Endpoint/);
    expect(await db.workerToken.count({ where: { endpointId: identity.endpointId } })).toBe(4);
  });
});

/** The repository over the test database, counting the lookup queries and the hashes each asked for. */
class CountedRepository extends WorkerTokensRepository {
  readonly lookups: number[] = [];

  override findByHashes(hashes: readonly string[]) {
    this.lookups.push(hashes.length);
    return super.findByHashes(hashes);
  }
}

/** Twenty workers of one endpoint with their tokens, checked by a service whose lookups are counted. */
async function twentyWorkers() {
  const { clock, issuer, identity } = await setup();
  const workerIds = Array.from({ length: 20 }, (_, i) => `w-${i}`);
  const issued = await issuer.reissueMany(identity.endpointId, workerIds);
  const repository = new CountedRepository(db);
  const router = new WorkerTokensService(repository, new WorkerTokenCache(() => clock.now()));
  const checkAll = () => Promise.all(issued.map((entry) => router.authenticate(entry.token)));
  return { clock, issued, repository, router, checkAll };
}

describe('WorkerTokensService batched lookups', () => {
  it('looks up the tokens that requests present together in one query', async () => {
    const { issued, repository, checkAll } = await twentyWorkers();
    expect(await checkAll()).toEqual(issued.map((entry) => entry.identity));
    expect(repository.lookups).toEqual([20]);
    // Cached now: no more queries.
    await checkAll();
    expect(repository.lookups).toEqual([20]);
  });

  it('renews cached tokens due to expire in one background query, serving them meanwhile; a revoked one is dropped', async () => {
    const { clock, issued, repository, router, checkAll } = await twentyWorkers();
    await checkAll();
    const revoked = issued[3]!;
    await db.workerToken.updateMany({
      where: { endpointId: revoked.identity.endpointId, workerId: revoked.identity.workerId },
      data: { revokedAt: new Date() },
    });
    clock.advance(WORKER_TOKEN_CACHE_TTL_MS - WORKER_TOKEN_REFRESH_AHEAD_MS);
    // Due for renewal: every request is answered from the cache, the revoked token too (it has not expired).
    expect(await checkAll()).toEqual(issued.map((entry) => entry.identity));
    await pollUntil(() => repository.lookups.length === 2 || undefined);
    expect(repository.lookups).toEqual([20, 20]);
    // The revoked token is refused before its entry would have expired (dropped, then looked up alone: revoked).
    await pollUntil(async () => (await router.authenticate(revoked.token)) === null || undefined);
    expect(repository.lookups).toEqual([20, 20, 1]);
    // The others outlive their first expiry without another query.
    clock.advance(WORKER_TOKEN_REFRESH_AHEAD_MS + 1);
    const others = issued.filter((entry) => entry !== revoked);
    expect(await Promise.all(others.map((entry) => router.authenticate(entry.token)))).toEqual(
      others.map((entry) => entry.identity),
    );
    expect(repository.lookups).toEqual([20, 20, 1]);
  });

  it('a failed renewal leaves the entry to expire; the first request after that meets the error', async () => {
    const { clock, issued, repository, router } = await twentyWorkers();
    const [entry] = issued;
    expect(await router.authenticate(entry!.token)).toEqual(entry!.identity);
    const down = new Error('database unavailable');
    jest.spyOn(repository, 'findByHashes').mockRejectedValue(down);
    clock.advance(WORKER_TOKEN_CACHE_TTL_MS - WORKER_TOKEN_REFRESH_AHEAD_MS);
    expect(await router.authenticate(entry!.token)).toEqual(entry!.identity);
    await pollUntil(() => jest.mocked(repository.findByHashes).mock.calls.length === 1 || undefined);
    // Still served until it expires, and not looked up again meanwhile.
    expect(await router.authenticate(entry!.token)).toEqual(entry!.identity);
    expect(jest.mocked(repository.findByHashes).mock.calls).toHaveLength(1);
    clock.advance(WORKER_TOKEN_REFRESH_AHEAD_MS);
    await expect(router.authenticate(entry!.token)).rejects.toBe(down);
  });
});
