import { type DatabaseClient, newId } from '@runplane/db';
import { EndpointsRepository, PublicEndpointsRepository } from '@runplane/endpoints';
import { countAnswered, createTestStores, FakeClock, pollUntil, type TestStores } from '@runplane/testing';
import {
  ENDPOINT_CACHE_TTL_MS as TTL_MS,
  ENDPOINT_RENEW_AHEAD_MS as RENEW_AHEAD_MS,
  EndpointDirectory,
} from '../src/client/endpoint-directory';
import { seedEndpoint } from './seed-endpoint';

let stores: TestStores;
let db: DatabaseClient;

beforeAll(async () => {
  stores = await createTestStores('jr-endpoint-directory');
  db = stores.db;
});

afterAll(() => stores.close());

/** An account's endpoint, and a directory over counted lookups whose clock drives expiry. */
async function setup() {
  const clock = new FakeClock();
  const account = await db.account.create({ data: { id: newId(), name: 'endpoint-directory' } });
  const endpoint = await seedEndpoint(db, account.id);
  const endpoints = new EndpointsRepository(db);
  const lookups = countAnswered(endpoints, 'findById');
  const directory = new EndpointDirectory(endpoints, { now: () => clock.now() });
  const fifty = (accountId = account.id) =>
    Promise.allSettled(Array.from({ length: 50 }, () => directory.requireOwned(accountId, endpoint.id)));
  return { clock, accountId: account.id, endpointId: endpoint.id, lookups, directory, fifty };
}

describe('EndpointDirectory', () => {
  it('looks an endpoint up once for all the requests that name it while its lookup is under way', async () => {
    const { endpointId, lookups, fifty } = await setup();
    const found = await fifty();
    expect(found.every((result) => result.status === 'fulfilled' && result.value.id === endpointId)).toBe(true);
    expect(lookups.count).toBe(1);
  });

  it('never caches a miss: another account gets 404 each time, looked up each time', async () => {
    const { lookups, directory, endpointId } = await setup();
    for (let i = 1; i <= 2; i += 1) {
      await expect(directory.requireOwned('another-account', endpointId)).rejects.toThrow('Endpoint not found');
      expect(lookups.count).toBe(i);
    }
  });

  it('renews an endpoint in use in the background before its entry expires; one deleted meanwhile becomes 404', async () => {
    const { clock, accountId, endpointId, lookups, directory, fifty } = await setup();
    await directory.requireOwned(accountId, endpointId);
    clock.advance(TTL_MS - RENEW_AHEAD_MS);
    // Due for renewal: all fifty are answered from the cache, and one query renews the entry.
    expect((await fifty()).every((result) => result.status === 'fulfilled')).toBe(true);
    await pollUntil(() => (lookups.count === 2 ? true : undefined));
    clock.advance(RENEW_AHEAD_MS + 1);
    await directory.requireOwned(accountId, endpointId);
    expect(lookups.count).toBe(2);
    // Deleted by another process: the next renewal drops the entry before it would have expired.
    await db.endpoint.delete({ where: { id: endpointId } });
    clock.advance(TTL_MS - 2 * RENEW_AHEAD_MS - 1);
    await expect(directory.requireOwned(accountId, endpointId)).resolves.toMatchObject({ id: endpointId });
    await pollUntil(async () => {
      const [result] = await Promise.allSettled([directory.requireOwned(accountId, endpointId)]);
      return result.status === 'rejected' ? true : undefined;
    });
  });

  it('renews a public model in use as a model, not as an endpoint of its caller; one unpublished meanwhile becomes 404', async () => {
    const { clock, accountId: owner, endpointId } = await setup();
    const name = `model-${newId()}`;
    await db.publicEndpoint.create({ data: { id: newId(), name, endpointId, accountId: owner } });
    const models = new PublicEndpointsRepository(db);
    const modelLookups = countAnswered(models, 'resolve');
    const directory = new EndpointDirectory(new EndpointsRepository(db), { models, now: () => clock.now() });
    const caller = { accountId: 'a-caller', apiKeyId: 'k', scope: 'ALL' as const, allowedEndpointIds: [] };
    await expect(directory.require(caller, name)).resolves.toMatchObject({ id: endpointId, publicModel: { name } });
    clock.advance(TTL_MS - RENEW_AHEAD_MS);
    await expect(directory.require(caller, name)).resolves.toMatchObject({ id: endpointId });
    await pollUntil(() => (modelLookups.count === 2 ? true : undefined));
    clock.advance(RENEW_AHEAD_MS + 1);
    await expect(directory.require(caller, name)).resolves.toMatchObject({ id: endpointId, publicModel: { name } });
    expect(modelLookups.count).toBe(2);
    await db.publicEndpoint.delete({ where: { name } });
    clock.advance(TTL_MS - 2 * RENEW_AHEAD_MS - 1);
    await expect(directory.require(caller, name)).resolves.toMatchObject({ id: endpointId });
    await pollUntil(async () => {
      const [result] = await Promise.allSettled([directory.require(caller, name)]);
      return result.status === 'rejected' ? true : undefined;
    });
  });
});
