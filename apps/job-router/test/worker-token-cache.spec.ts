import { createPrismaClient, type DatabaseClient, newId } from '@runplane/db';
import { createTestDatabase, FakeClock, type TestDatabase } from '@runplane/testing';
import { createWorkerTokensService, WORKER_TOKEN_CACHE_TTL_MS, WorkerTokenCache } from '../src/worker-tokens';

let database: TestDatabase;
let db: DatabaseClient;

beforeAll(async () => {
  database = await createTestDatabase('jr-worker-token-cache');
  db = createPrismaClient(database.url);
});

afterAll(async () => {
  await db.$disconnect();
  await database.drop();
});

/** Two services on one cache stand for two parts of one process; the clock drives expiry. */
async function setup() {
  const clock = new FakeClock();
  const cache = new WorkerTokenCache(() => clock.now());
  const issuer = createWorkerTokensService(db, cache);
  const router = createWorkerTokensService(db, cache);
  const account = await db.account.create({ data: { id: newId(), name: 'worker-token-cache' } });
  const template = await db.template.create({
    data: { id: newId(), accountId: account.id, name: `t-${newId()}`, imageName: 'runplane/echo:1', isServerless: true },
  });
  const endpoint = await db.endpoint.create({
    data: { id: newId(), accountId: account.id, name: `ep-${newId()}`, templateId: template.id },
  });
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
