import type { DatabaseClient } from '@runplane/db';
import { countAnswered, createTestStores, FakeClock, pollUntil, type TestStores } from '@runplane/testing';
import {
  ApiKeysRepository,
  ApiKeysService,
  AUTH_CACHE_RENEW_AHEAD_MS,
  AUTH_CACHE_TTL_MS,
  AuthCache,
  createAccountsServices,
} from '.';

let stores: TestStores;
let db: DatabaseClient;

beforeAll(async () => {
  stores = await createTestStores('accounts-auth-cache');
  db = stores.db;
});

afterAll(() => stores.close());

/** Two services sharing one cache stand for the gateway and job-router in one process; the clock drives expiry. */
async function setup() {
  const clock = new FakeClock();
  const cache = new AuthCache(() => clock.now());
  const admin = createAccountsServices(db, cache);
  const router = createAccountsServices(db, cache).apiKeys;
  const account = await admin.accounts.create({ name: 'auth-cache' });
  const { apiKey, secret } = await admin.apiKeys.create(account.id, { name: 'k', scope: 'ALL' });
  return { clock, admin: admin.apiKeys, router, accountId: account.id, apiKey, secret };
}

describe('ApiKeysService authentication cache', () => {
  it('serves a known key from the cache, and a change made by another process takes effect within the ttl', async () => {
    const { clock, router, apiKey, secret } = await setup();
    expect(await router.authenticate(secret)).toMatchObject({ apiKeyId: apiKey.id, scope: 'ALL' });
    // Another process disables the key: this one only learns of it from Postgres once its entry expires.
    await db.apiKey.update({ where: { id: apiKey.id }, data: { disabled: true } });
    expect(await router.authenticate(secret)).toMatchObject({ apiKeyId: apiKey.id });
    clock.advance(AUTH_CACHE_TTL_MS - 1);
    expect(await router.authenticate(secret)).toMatchObject({ apiKeyId: apiKey.id });
    clock.advance(1);
    expect(await router.authenticate(secret)).toBeNull();
  });

  it('stops trusting a key disabled, re-scoped or deleted in this process at once', async () => {
    const { admin, router, accountId, apiKey, secret } = await setup();
    expect(await router.authenticate(secret)).toMatchObject({ scope: 'ALL' });
    await admin.update(accountId, apiKey.id, { scope: 'READ_ONLY' });
    expect(await router.authenticate(secret)).toMatchObject({ scope: 'READ_ONLY' });
    await admin.update(accountId, apiKey.id, { disabled: true });
    expect(await router.authenticate(secret)).toBeNull();
    await admin.update(accountId, apiKey.id, { disabled: false });
    expect(await router.authenticate(secret)).toMatchObject({ apiKeyId: apiKey.id });
    await admin.delete(accountId, apiKey.id);
    expect(await router.authenticate(secret)).toBeNull();
  });

  it('refuses an unknown key from the cache for the ttl; a key created through the service works at once', async () => {
    const { clock, admin, router, accountId } = await setup();
    const { secret } = await admin.create(accountId, { name: 'second', scope: 'ALL' });
    const row = await db.apiKey.findFirstOrThrow({ where: { accountId, name: 'second' } });
    await db.apiKey.delete({ where: { id: row.id } });
    expect(await router.authenticate(secret)).toBeNull();
    // Restored behind the service's back: still refused from the cache until the ttl ends, then found in Postgres.
    await db.apiKey.create({ data: row });
    clock.advance(AUTH_CACHE_TTL_MS - 1);
    expect(await router.authenticate(secret)).toBeNull();
    clock.advance(1);
    expect(await router.authenticate(secret)).toMatchObject({ apiKeyId: row.id });
  });

  it('forgets a refused hash when a key is created with it, even if the refusal raced the creation', async () => {
    const { admin, accountId } = await setup();
    const cache = new AuthCache();
    const generation = cache.refusedGeneration();
    cache.forgetRefused('hash');
    cache.refuse('hash', generation);
    expect(cache.isRefused('hash')).toBe(false);
    cache.refuse('hash', cache.refusedGeneration());
    expect(cache.isRefused('hash')).toBe(true);
    cache.forgetRefused('hash');
    expect(cache.isRefused('hash')).toBe(false);
    const services = createAccountsServices(db, cache).apiKeys;
    const { apiKey, secret } = await services.create(accountId, { name: 'third', scope: 'ALL' });
    expect(await services.authenticate(secret)).toMatchObject({ apiKeyId: apiKey.id });
    expect(await admin.authenticate(`rpl_${'x'.repeat(43)}`)).toBeNull();
  });

  it('does not cache a read that raced a change made in this process', async () => {
    const { admin, accountId, apiKey, secret } = await setup();
    const cache = new AuthCache();
    const generation = cache.generation();
    cache.forget(apiKey.id);
    cache.set('hash', { accountId, apiKeyId: apiKey.id, scope: 'ALL', allowedEndpointIds: [] }, generation);
    expect(cache.get('hash')).toBeUndefined();
    await admin.delete(accountId, apiKey.id);
    expect(await admin.authenticate(secret)).toBeNull();
  });
});

/** A key, and a service of its own cache whose lookups are counted. */
async function counted() {
  const { clock, secret, apiKey } = await setup();
  const repository = new ApiKeysRepository(db);
  const lookups = countAnswered(repository, 'findByHash');
  const service = new ApiKeysService(repository, new AuthCache(() => clock.now()));
  const fifty = () => Promise.all(Array.from({ length: 50 }, () => service.authenticate(secret)));
  return { clock, secret, apiKey, repository, lookups, service, fifty };
}

describe('ApiKeysService shared lookups and renewal', () => {
  it('looks a key up once for all the requests that present it while its lookup is under way', async () => {
    const { apiKey, lookups, fifty } = await counted();
    const principals = await fifty();
    expect(new Set(principals.map((principal) => principal?.apiKeyId))).toEqual(new Set([apiKey.id]));
    expect(lookups.count).toBe(1);
  });

  it('renews a key in use in one background query before its entry expires; a key disabled meanwhile is refused', async () => {
    const { clock, secret, apiKey, lookups, service, fifty } = await counted();
    await service.authenticate(secret);
    clock.advance(AUTH_CACHE_TTL_MS - AUTH_CACHE_RENEW_AHEAD_MS);
    // Due for renewal: all fifty are answered from the cache, and one query renews the entry.
    expect((await fifty()).every((principal) => principal?.apiKeyId === apiKey.id)).toBe(true);
    await pollUntil(() => (lookups.count === 2 ? true : undefined));
    // Renewed: past the first entry's expiry with no query.
    clock.advance(AUTH_CACHE_RENEW_AHEAD_MS + 1);
    expect(await service.authenticate(secret)).toMatchObject({ apiKeyId: apiKey.id });
    expect(lookups.count).toBe(2);
    // Disabled by another process: the next renewal drops the entry before it would have expired.
    await db.apiKey.update({ where: { id: apiKey.id }, data: { disabled: true } });
    // Into the renewed entry's own renewal window (it was renewed AUTH_CACHE_RENEW_AHEAD_MS + 1 ago).
    clock.advance(AUTH_CACHE_TTL_MS - 2 * AUTH_CACHE_RENEW_AHEAD_MS - 1);
    expect(await service.authenticate(secret)).toMatchObject({ apiKeyId: apiKey.id });
    await pollUntil(async () => ((await service.authenticate(secret)) === null ? true : undefined));
  });

  it('leaves the entry to expire when its renewal fails; the first request after that meets the error', async () => {
    const { clock, secret, apiKey, repository, service } = await counted();
    await service.authenticate(secret);
    const down = new Error('database unavailable');
    jest.spyOn(repository, 'findByHash').mockRejectedValue(down);
    clock.advance(AUTH_CACHE_TTL_MS - AUTH_CACHE_RENEW_AHEAD_MS);
    expect(await service.authenticate(secret)).toMatchObject({ apiKeyId: apiKey.id });
    clock.advance(AUTH_CACHE_RENEW_AHEAD_MS);
    await expect(service.authenticate(secret)).rejects.toThrow(down);
  });
});
