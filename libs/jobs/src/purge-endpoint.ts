/**
 * Removes everything the job engine keeps in Redis for one endpoint, once the endpoint itself is deleted: its
 * queue, job hashes, stream chunks, idempotency keys, counters and worker sets, and its entries in the
 * engine's shared indexes (deadlines, expiry, workers, webhook outbox, endpoints), so the sweeper never visits its
 * jobs again. Webhook deliveries already queued still go out (they carry the job record); an outbox entry not yet
 * relayed would find its job gone and send nothing anyway.
 *
 * Workers still holding one of its jobs are not told: their job-done and job-stream calls answer 404 (the job is
 * gone), which ends the job on their side. A job-router that found the endpoint within its endpoint cache window
 * (5 s) may still accept a job for it meanwhile; purging again removes such a straggler (the purge is idempotent).
 */
import { defineLuaScript, type Redis } from '@runplane/queue';
import { type GlobalKey, indexMemberPrefix, JobKeys } from './protocol';

/** Keys or members handled per Redis call, so a large endpoint never blocks Redis for long. */
const BATCH = 500;

/** Lua string patterns for SCAN's glob: `*`, `?`, `[`, `]` and `\` in a prefix are matched literally. */
const GLOB_ESCAPE = `local function literal(s) return (string.gsub(s, '[%*%?%[%]\\\\]', '\\\\%0')) end`;

/** One SCAN step over the keys starting with `prefix` (a KEY), unlinking what it found; returns the next cursor. */
const UNLINK_STEP = defineLuaScript<{ prefix: string; cursor: string }, string>(
  `${GLOB_ESCAPE}
local reply = redis.call('SCAN', ARGV[1], 'MATCH', literal(KEYS[1]) .. '*', 'COUNT', ARGV[2])
if #reply[2] > 0 then redis.call('UNLINK', unpack(reply[2])) end
return reply[1]`,
  (a) => ({ keys: [a.prefix], argv: [a.cursor, BATCH] }),
);

/** One ZSCAN step over the sorted set `key`, removing members starting with `prefix`; returns the next cursor. */
const ZREM_STEP = defineLuaScript<{ key: string; cursor: string; prefix: string }, string>(
  `${GLOB_ESCAPE}
local reply = redis.call('ZSCAN', KEYS[1], ARGV[1], 'MATCH', literal(ARGV[2]) .. '*', 'COUNT', ARGV[3])
local members = {}
for i = 1, #reply[2], 2 do members[#members + 1] = reply[2][i] end
if #members > 0 then redis.call('ZREM', KEYS[1], unpack(members)) end
return reply[1]`,
  (a) => ({ keys: [a.key], argv: [a.cursor, a.prefix, BATCH] }),
);

/** The engine-wide indexes whose members name an endpoint. */
const INDEXES: GlobalKey[] = ['deadlines', 'expiry', 'workers', 'outbox'];

/**
 * Purges an endpoint's job data. `redis` carries the deployment's key prefix (InfrastructureModule's REDIS_CLIENT):
 * every key below is relative to it, and the steps pass their keys as KEYS so the client prefixes them.
 */
export async function purgeEndpointJobs(redis: Redis, endpointId: string): Promise<void> {
  const keys = JobKeys.forPrefixedClient();
  // Its queue first, so no take is given one of its jobs while the rest goes.
  await redis.unlink(keys.endpoint(endpointId, 'queued'));
  for (const index of INDEXES)
    await removeMembersStartingWith(redis, keys.global(index), indexMemberPrefix(endpointId));
  await unlinkKeysStartingWith(redis, keys.endpointPrefix(endpointId));
  await redis.srem(keys.global('endpoints'), endpointId);
}

async function unlinkKeysStartingWith(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    cursor = await UNLINK_STEP.run(redis, { prefix, cursor });
  } while (cursor !== '0');
}

async function removeMembersStartingWith(redis: Redis, key: string, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    cursor = await ZREM_STEP.run(redis, { key, cursor, prefix });
  } while (cursor !== '0');
}
