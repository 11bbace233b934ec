// Deleting an endpoint through the gateway purges its jobs from Redis. The job engine runs on the gateway's own
// Redis prefix, as a job-router of the same deployment would; its NotFound answers are the job API's 404s.
import { NotFoundError } from '@runplane/contracts';
import { newId } from '@runplane/db';
import { REDIS_CLIENT } from '@runplane/http';
import { type JobSubmission, RedisJobEngine } from '@runplane/jobs';
import { bullPrefix, createRedis, type Redis } from '@runplane/queue';
import { cleanupRedisPrefix } from '@runplane/testing';
import { bearer, type GatewayHarness, startGateway } from './harness';

describe('DELETE /v1/endpoints/{id} purges the endpoint jobs', () => {
  let h: GatewayHarness;
  let redis: Redis;
  let prefix: string;
  let engine: RedisJobEngine;

  beforeAll(async () => {
    h = await startGateway('gw-endpoint-purge');
    // The gateway's client carries the deployment prefix; the engine takes it raw, on a client without one.
    const gatewayRedis = h.app.get<Redis>(REDIS_CLIENT);
    prefix = gatewayRedis.options.keyPrefix ?? '';
    redis = createRedis(`redis://${gatewayRedis.options.host ?? '127.0.0.1'}:${gatewayRedis.options.port ?? 6379}`);
    engine = new RedisJobEngine({ queueOrdered: redis, prefix, region: 'u1' });
  });

  afterAll(async () => {
    await engine?.close();
    await h?.close();
    await cleanupRedisPrefix(redis, prefix);
    await cleanupRedisPrefix(redis, bullPrefix(prefix));
    await redis.quit();
  });

  async function endpointOf(accountId: string): Promise<string> {
    const template = await h.db.template.create({
      data: { id: newId(), accountId, name: `tpl-${newId()}`, imageName: 'runplane/echo:1', isServerless: true },
    });
    const endpoint = await h.db.endpoint.create({
      data: { id: newId(), accountId, name: `ep-${newId()}`, templateId: template.id },
    });
    return endpoint.id;
  }

  const job = (endpointId: string, accountId: string, idempotencyKey?: string): JobSubmission => ({
    endpointId,
    accountId,
    input: { n: 1 },
    extra: {},
    policy: { executionTimeoutMs: 600_000, ttlMs: 86_400_000, lowPriority: false },
    sync: false,
    idempotencyKey,
  });

  /** Raw Redis keys under the deployment prefix that name the endpoint (engine keys and its BullMQ queue). */
  async function redisKeysOf(endpointId: string): Promise<string[]> {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      found.push(...keys.filter((key) => key.includes(endpointId)));
      cursor = next;
    } while (cursor !== '0');
    return found;
  }

  /** Members of the engine's shared indexes that name the endpoint. */
  async function indexEntriesOf(endpointId: string): Promise<string[]> {
    const base = `${prefix}jobs:`;
    const members = await Promise.all(
      ['deadlines', 'expiry', 'workers', 'outbox'].map((index) => redis.zrange(`${base}${index}`, '0', '-1')),
    );
    const listed = (await redis.sismember(`${base}endpoints`, endpointId)) === 1 ? [endpointId] : [];
    return [...members.flat().filter((member) => member.startsWith(`${endpointId}/`)), ...listed];
  }

  it('removes its queue, jobs, chunks, idempotency keys and counters; other endpoints keep theirs', async () => {
    const { accountId, secret } = await h.accountWithKey();
    const doomed = await endpointOf(accountId);
    const kept = await endpointOf(accountId);
    const finished = await engine.submit(job(doomed, accountId));
    await engine.take({ endpointId: doomed, workerId: 'w1', count: 1, waitMs: 0 });
    await engine.complete(doomed, 'w1', finished.id, { output: 'done' });
    const running = await engine.submit(job(doomed, accountId));
    await engine.take({ endpointId: doomed, workerId: 'w1', count: 1, waitMs: 0 });
    await engine.appendStream(doomed, 'w1', running.id, 'partial');
    const queued = await engine.submit(job(doomed, accountId, 'client-key'));
    const keptJob = await engine.submit(job(kept, accountId, 'client-key'));
    const doomedKeys = await redisKeysOf(doomed);
    for (const part of [
      `jobs:${doomed}:job:`,
      `jobs:${doomed}:stats`,
      `jobs:${doomed}:idem:`,
      `jobs:${doomed}:queued`,
    ]) {
      expect(doomedKeys.some((key) => key.includes(part))).toBe(true);
    }
    const keptKeys = await redisKeysOf(kept);

    const deleted = await h.inject({ method: 'DELETE', url: `/v1/endpoints/${doomed}`, headers: bearer(secret) });
    expect(deleted.statusCode).toBe(204);

    expect(await redisKeysOf(doomed)).toEqual([]);
    expect(await indexEntriesOf(doomed)).toEqual([]);
    // What /v2/{id}/status answers 404 for.
    for (const { id } of [finished, running, queued])
      await expect(engine.get(doomed, id)).rejects.toThrow(NotFoundError);
    // The worker still holding a job hears 404 when it reports it, and nothing comes back.
    await expect(engine.complete(doomed, 'w1', running.id, { output: 'late' })).rejects.toThrow(NotFoundError);
    await expect(engine.appendStream(doomed, 'w1', running.id, 'late')).rejects.toThrow(NotFoundError);
    expect(await redisKeysOf(doomed)).toEqual([]);
    // No worker is handed a queued job (its poll only marks it present, which the lost-worker rule sweeps away).
    expect(await engine.take({ endpointId: doomed, workerId: 'w2', count: 5, waitMs: 0 })).toEqual([]);

    expect(await redisKeysOf(kept)).toEqual(expect.arrayContaining(keptKeys));
    expect(await engine.get(kept, keptJob.id)).toMatchObject({ id: keptJob.id, status: 'IN_QUEUE' });
    const get = await h.inject({ method: 'GET', url: `/v1/endpoints/${doomed}`, headers: bearer(secret) });
    expect(get.statusCode).toBe(404);
  });

  it('answers 404 for an unknown or foreign endpoint and purges nothing', async () => {
    const owner = await h.accountWithKey();
    const stranger = await h.accountWithKey();
    const endpointId = await endpointOf(owner.accountId);
    await engine.submit(job(endpointId, owner.accountId));
    const before = (await redisKeysOf(endpointId)).sort();
    const foreign = await h.inject({
      method: 'DELETE',
      url: `/v1/endpoints/${endpointId}`,
      headers: bearer(stranger.secret),
    });
    expect(foreign.statusCode).toBe(404);
    expect((await redisKeysOf(endpointId)).sort()).toEqual(before);
    const unknown = await h.inject({
      method: 'DELETE',
      url: '/v1/endpoints/no-such-endpoint',
      headers: bearer(owner.secret),
    });
    expect(unknown.statusCode).toBe(404);
  });
});
