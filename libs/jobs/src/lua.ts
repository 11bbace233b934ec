/**
 * Lua scripts behind every job state change. Each runs atomically in Redis, so take vs cancel, job-done vs
 * timeout and a repeated job-done can never interleave. ARGV[1] is the engine's key base ("<prefix>jobs:"); the key
 * layout and the wake messages come from `protocol/` (LUA_KEYS, LUA_WAKES, LUA_TAKERS), shared with the TypeScript.
 * Each script is called through its wrapper in engine-scripts.ts, which maps named arguments to ARGV.
 */

import { JOB_EVENTS_MAX_LEN } from './events';
import { NO_EXTRA } from './job-store';
import { JOB_POLICY_LIMITS, RESULT_RETENTION } from './policy';
import { FINISHED_FIELD, LUA_FINISHED, LUA_HAND_OFF, LUA_KEYS, LUA_TAKERS, LUA_WAKES } from './protocol';

/**
 * What every script starts with: the key base, key and message builders, events, wakes and terminal steps. A final
 * status is written to the event stream (`job.finished`, for the scheduler) and to the finished-jobs stream (for the
 * job-router's metrics, protocol/finished.ts).
 */
export const PRELUDE = `
local base = ARGV[1]
${LUA_KEYS}${LUA_WAKES}${LUA_TAKERS}${LUA_FINISHED}local TERMINAL = { COMPLETED = true, FAILED = true, CANCELLED = true, TIMED_OUT = true }
local function emit(kind, ep, ...)
  redis.call('XADD', gkey('events'), 'MAXLEN', '~', '${JOB_EVENTS_MAX_LEN}', '*', 'type', kind, 'endpointId', ep, ...)
end
local function wake(message) redis.call('PUBLISH', gkey('wake'), message) end
${LUA_HAND_OFF}-- A job's change is published when a caller may wait for it: always for a /runsync job (sync '1'), for any other
-- while some caller of the endpoint waits (<ep>:watched, set by the engine before it parks).
local function jobChanged(ep, id, sync)
  if sync == '1' or redis.call('EXISTS', ekey(ep, 'watched')) == 1 then wake(jobChangedWake(ep, id)) end
end
-- Record fields left out at their default (see newRecordFields in job-store.ts) are read through these.
local function timeoutOf(ms) return tonumber(ms or '${JOB_POLICY_LIMITS.executionTimeout.default}') end
local function ttlAtOf(ttlAt, submittedAt) return tonumber(ttlAt) or tonumber(submittedAt) + ${JOB_POLICY_LIMITS.ttl.default} end
local function retentionOf(ms, sync)
  return tonumber(ms) or (sync == '1' and ${RESULT_RETENTION.syncMs} or ${RESULT_RETENTION.runMs})
end
-- Queues a job at the tail of its endpoint's queue, the sorted set takes hand out lowest score first. The score is
-- the queue time, or just after the tail's when that is not earlier, so jobs queued in one millisecond keep their
-- order. (Formatted by hand: Redis would round a Lua number to 14 digits, losing the fraction.)
local function enqueue(ep, id, now)
  local q = ekey(ep, 'queued')
  local tail = tonumber(redis.call('ZRANGE', q, -1, -1, 'WITHSCORES')[2] or '-1')
  local score = now
  if tail >= now then score = tail + 1 / 1024 end
  redis.call('ZADD', q, string.format('%.17g', score), id)
end
-- Keeps a job that left its queue among the endpoint's recent ones (behind /requests: newest first by submission,
-- the latest 1,000); a queued job is listed from its queue (see JobReader.recent).
local function remember(ep, id, submittedAt)
  local r = ekey(ep, 'recent')
  redis.call('ZADD', r, 'NX', submittedAt, id)
  redis.call('ZREMRANGEBYRANK', r, 0, -1001)
end
-- Takes a job out of its queue; \`low\` is its lowPriority field ('1' only when set), which alone puts it in \`low\`.
local function unqueue(ep, id, low)
  redis.call('ZREM', ekey(ep, 'queued'), id)
  if low == '1' then redis.call('SREM', ekey(ep, 'low'), id) end
end
-- Tells a worker to stop a job; the worker's first request not drained yet is remembered in 'stops', for workers
-- without the job-stop channel (see SWEEP_UNHEEDED_STOPS).
local function stop(ep, wid, id, now)
  redis.call('SADD', stopkey(ep, wid), id)
  redis.call('ZADD', gkey('stops'), 'NX', now, member(ep, wid))
  wake(stopWake(ep, wid))
end
-- The record fields a terminal transition reads, in this order (f[1] workerId ... f[11] lastWorkerId).
local function finishFields(k)
  return redis.call('HMGET', k, 'workerId', 'ttlAt', 'retentionMs', 'webhook', 'queuedAt', 'takenAt', 'submittedAt',
    'sync', 'status', 'lowPriority', 'lastWorkerId')
end
-- A terminal transition of a job IN_QUEUE or IN_PROGRESS; \`fields\` are more field/value pairs of its record to set
-- with its status (its error, its output), \`f\` its finishFields when the caller read them already. A job that left
-- its queue when it was claimed was remembered then, so only a queued one leaves its queue and joins the recent ones
-- here. A job with a webhook enters the outbox in the same step (see webhook-outbox.ts). Returns true when it did.
local function finish(ep, id, status, now, fields, f)
  local k = jkey(ep, id)
  f = f or finishFields(k)
  redis.call('HSET', k, 'status', status, 'doneAt', now, unpack(fields or {}))
  if f[9] == 'IN_QUEUE' then
    unqueue(ep, id, f[10])
    remember(ep, id, f[7])
  end
  redis.call('SREM', ekey(ep, 'running'), id)
  redis.call('ZREM', gkey('deadlines'), member(ep, id))
  if f[1] then redis.call('SREM', wkey(ep, f[1]), id) end
  redis.call('ZADD', gkey('expiry'), math.min(ttlAtOf(f[2], f[7]), now + retentionOf(f[3], f[8])), member(ep, id))
  redis.call('HINCRBY', ekey(ep, 'stats'), status, 1)
  emit('job.finished', ep, 'jobId', id, 'status', status, 'workerId', f[1] or '', 'queuedAt', f[5] or f[7] or '',
    'takenAt', f[6] or '', 'doneAt', now)
  redis.call('XADD', gkey('finished'), 'MAXLEN', '~', '${JOB_EVENTS_MAX_LEN}', '*', '${FINISHED_FIELD}',
    finishedEntry(ep, status, f[5] or f[7], f[6] or '', now))
  jobChanged(ep, id, f[8])
  if f[4] then redis.call('ZADD', gkey('outbox'), now, member(ep, id)) end
  return f[4] ~= false
end
`;

/**
 * The claim step shared by CLAIM, TAKE and SUBMIT. `started` is what giving a job to a worker adds beside its record:
 * from then on the job has its own member in the expiry index, and is among the endpoint's recent jobs. `claim` gives
 * an IN_QUEUE job to a worker; returns {input, extra, traceparent} ('' without one), or nil when the job is not
 * IN_QUEUE. (SUBMIT records a job it claims at once as IN_PROGRESS from the start: `claimNew`, submit-lua.ts.)
 */
export const CLAIM_STEP = `
local function started(ep, id, wid, now, timeoutMs, ttlAt, submittedAt)
  redis.call('SADD', ekey(ep, 'running'), id)
  redis.call('SADD', wkey(ep, wid), id)
  redis.call('ZADD', gkey('deadlines'), now + timeoutOf(timeoutMs), member(ep, id))
  redis.call('ZADD', gkey('expiry'), ttlAtOf(ttlAt, submittedAt), member(ep, id))
  remember(ep, id, submittedAt)
  redis.call('ZADD', gkey('workers'), now, member(ep, wid))
  redis.call('ZADD', ekey(ep, 'workers'), now, wid)
  emit('job.started', ep, 'jobId', id, 'workerId', wid)
end
local function claim(ep, id, wid, now)
  local k = jkey(ep, id)
  local f = redis.call('HMGET', k, 'status', 'executionTimeoutMs', 'input', 'extra', 'traceparent', 'ttlAt',
    'submittedAt', 'lowPriority', 'lastWorkerId')
  if f[1] ~= 'IN_QUEUE' then return nil end
  redis.call('HSET', k, 'status', 'IN_PROGRESS', 'workerId', wid, 'takenAt', now)
  if f[9] then redis.call('HDEL', k, 'lastWorkerId') end
  unqueue(ep, id, f[8])
  started(ep, id, wid, now, f[2], f[6], f[7])
  return { f[3], f[4] or '${NO_EXTRA}', f[5] or '' }
end
`;

/**
 * Gives a queued job to a worker: ARGV ep, id, workerId, now. Returns {input, extra, traceparent}, nil when the job is not
 * IN_QUEUE, or 'retired' (the job untouched) when the worker was retired (see RETIRE).
 */
export const CLAIM = `${PRELUDE}${CLAIM_STEP}
local ep, id, wid, now = ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
if redis.call('EXISTS', retiredkey(ep, wid)) == 1 then return 'retired' end
return claim(ep, id, wid, now) or false
`;

/**
 * Gives up to `count` of the endpoint's oldest queued jobs to a worker: ARGV ep, workerId, now, count, register
 * (0: no, 1: a take's first look, 2: a look again), its TakerEntry, the takers list's ttl (ms). Returns {id, input,
 * extra, traceparent, ...} for each job given, or 'retired' (nothing given) when the worker was retired (see RETIRE).
 * When it gives nothing and `register` is set, the take is registered in `<ep>:takers` in the same step (its earlier
 * entry, on a look again, moved to the tail), so a submission that runs after it finds it there (SUBMIT).
 */
export const TAKE = `${PRELUDE}${CLAIM_STEP}
local ep, wid, now, count = ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local register, entry, takersTtl = ARGV[6], ARGV[7], tonumber(ARGV[8])
if redis.call('EXISTS', retiredkey(ep, wid)) == 1 then return 'retired' end
local q = ekey(ep, 'queued')
local out = {}
while #out < count * 4 do
  local id = redis.call('ZRANGE', q, 0, 0)[1]
  if not id then break end
  local job = claim(ep, id, wid, now)
  if job then
    out[#out + 1] = id
    out[#out + 1] = job[1]
    out[#out + 1] = job[2]
    out[#out + 1] = job[3]
  else
    -- Every step that ends a queued job unqueues it; this only guards the loop against an entry without its job.
    redis.call('ZREM', q, id)
  end
end
if #out == 0 and register ~= '0' then
  local takers = ekey(ep, 'takers')
  if register == '2' then redis.call('LREM', takers, 1, entry) end
  redis.call('RPUSH', takers, entry)
  if redis.call('PTTL', takers) < takersTtl then redis.call('PEXPIRE', takers, takersTtl) end
end
return out
`;

/**
 * Undoes a CLAIM whose answer never left this replica (the taker hung up first): ARGV ep, id, workerId. The job is
 * IN_QUEUE again at its first place, with no retry counted. Returns 1, or 0 when the job is no longer that worker's.
 */
export const UNCLAIM = `${PRELUDE}
local ep, id, wid = ARGV[2], ARGV[3], ARGV[4]
local k = jkey(ep, id)
local f = redis.call('HMGET', k, 'status', 'workerId', 'queuedAt', 'lowPriority', 'retries', 'submittedAt')
if f[1] ~= 'IN_PROGRESS' or f[2] ~= wid then return 0 end
redis.call('HSET', k, 'status', 'IN_QUEUE')
redis.call('HDEL', k, 'workerId', 'takenAt')
redis.call('ZADD', ekey(ep, 'queued'), f[3] or f[6], id)
if f[4] == '1' then redis.call('SADD', ekey(ep, 'low'), id) end
redis.call('SREM', ekey(ep, 'running'), id)
redis.call('SREM', wkey(ep, wid), id)
redis.call('ZREM', gkey('deadlines'), member(ep, id))
emit('job.requeued', ep, 'jobId', id, 'workerId', wid, 'retries', f[5] or '0')
return 1
`;

/**
 * Retires a worker the scheduler removes: no CLAIM gives it a job any more (its takes may still be parked, or come
 * before its token is refused), and /health no longer counts it (JobReader.workers skips retired workers, though
 * their processes may ping on until they have stopped). ARGV ep, workerId, onlyIfIdle (1|0), ttlMs (how long the mark
 * outlives the worker), at (the removal time: the mark's value, which billing's stop of the worker equals). Returns 1,
 * or 0 (nothing marked) when onlyIfIdle and the worker holds a job: it took one since the scheduler looked.
 */
export const RETIRE = `${PRELUDE}
local ep, wid, onlyIfIdle, ttl, at = ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
if onlyIfIdle == '1' and redis.call('SCARD', wkey(ep, wid)) > 0 then return 0 end
redis.call('SET', retiredkey(ep, wid), at, 'PX', ttl)
return 1
`;

/**
 * A worker's job-done: ARGV ep, id, workerId, now, kind(progress|final), status, hasOutput, output, hasError, error,
 * stopPod. Returns missing | ignored | progress | done | webhook (done, and its webhook is in the outbox). Only the job's worker (or, after a lost-worker re-queue, its
 * previous worker) may report; anything after a terminal status is ignored.
 */
export const COMPLETE = `${PRELUDE}
local ep, id, wid, now, kind, status = ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5]), ARGV[6], ARGV[7]
local k = jkey(ep, id)
local f = finishFields(k)
local current = f[9]
if ARGV[12] == '1' then emit('worker.refresh', ep, 'workerId', wid) end
if not current then return 'missing' end
if TERMINAL[current] then return 'ignored' end
local mine = (current == 'IN_PROGRESS' and f[1] == wid) or (current == 'IN_QUEUE' and f[11] == wid)
if not mine then return 'ignored' end
if kind == 'progress' then
  if ARGV[8] == '1' then redis.call('HSET', k, 'output', ARGV[9]) end
  jobChanged(ep, id, f[8])
  return 'progress'
end
local fields = {}
if ARGV[8] == '1' then fields = { 'output', ARGV[9] } else redis.call('HDEL', k, 'output') end
if ARGV[10] == '1' then
  fields[#fields + 1] = 'error'
  fields[#fields + 1] = ARGV[11]
end
if current == 'IN_QUEUE' then
  redis.call('HSET', k, 'workerId', wid)
  f[1] = wid
end
if finish(ep, id, status, now, fields, f) then return 'webhook' end
return 'done'
`;

/** ARGV ep, id, now. Returns missing, the terminal status it already had, or the status it was cancelled from. */
export const CANCEL = `${PRELUDE}
local ep, id, now = ARGV[2], ARGV[3], tonumber(ARGV[4])
local f = redis.call('HMGET', jkey(ep, id), 'status', 'workerId')
if not f[1] then return 'missing' end
if TERMINAL[f[1]] then return f[1] end
finish(ep, id, 'CANCELLED', now, nil)
if f[1] == 'IN_PROGRESS' then stop(ep, f[2], id, now) end
return f[1]
`;

/** ARGV ep, id, now. Re-queues a FAILED or TIMED_OUT job under its id; returns missing, queued or the status it has. */
export const RETRY = `${PRELUDE}
local ep, id, now = ARGV[2], ARGV[3], tonumber(ARGV[4])
local k = jkey(ep, id)
local f = redis.call('HMGET', k, 'status', 'ttlAt', 'lowPriority', 'submittedAt')
if not f[1] then return 'missing' end
if f[1] ~= 'FAILED' and f[1] ~= 'TIMED_OUT' then return f[1] end
redis.call('HSET', k, 'status', 'IN_QUEUE', 'queuedAt', now)
redis.call('HDEL', k, 'output', 'error', 'workerId', 'takenAt', 'doneAt', 'lastWorkerId')
redis.call('DEL', skey(ep, id))
enqueue(ep, id, now)
if f[3] == '1' then redis.call('SADD', ekey(ep, 'low'), id) end
redis.call('ZADD', gkey('expiry'), ttlAtOf(f[2], f[4]), member(ep, id))
redis.call('HINCRBY', ekey(ep, 'stats'), 'retried', 1)
emit('job.queued', ep, 'jobId', id, 'lowPriority', f[3] or '0', 'retry', '1')
return 'queued'
`;

/** ARGV ep, id, ttlMs. The ttl counts from submission; a finished job also keeps its retention bound. */
export const SET_TTL = `${PRELUDE}
local ep, id, ttl = ARGV[2], ARGV[3], tonumber(ARGV[4])
local k = jkey(ep, id)
local f = redis.call('HMGET', k, 'status', 'submittedAt', 'doneAt', 'retentionMs', 'sync')
if not f[1] then return 'missing' end
local ttlAt = tonumber(f[2]) + ttl
redis.call('HSET', k, 'ttlAt', ttlAt)
local deleteAt = ttlAt
if TERMINAL[f[1]] then deleteAt = math.min(ttlAt, tonumber(f[3]) + retentionOf(f[4], f[5])) end
redis.call('ZADD', gkey('expiry'), deleteAt, member(ep, id))
return 'ok'
`;

/**
 * ARGV ep, now, id... Cancels those of the given jobs still queued (running ones go on), in the order given; returns
 * {cancelled ids, ids of those that entered the webhook outbox}.
 */
export const PURGE = `${PRELUDE}
local ep, now = ARGV[2], tonumber(ARGV[3])
local queued = ekey(ep, 'queued')
local done, hooked = {}, {}
for i = 4, #ARGV do
  local id = ARGV[i]
  if redis.call('ZSCORE', queued, id) then
    done[#done + 1] = id
    if finish(ep, id, 'CANCELLED', now, nil) then hooked[#hooked + 1] = id end
  end
end
return { done, hooked }
`;

/** ARGV member ("<ep>/<id>"), score. Removes an outbox entry only if it is still the one relayed (same finish time). */
export const OUTBOX_ACK = `${PRELUDE}
local key = gkey('outbox')
local score = redis.call('ZSCORE', key, ARGV[2])
if score and tonumber(score) == tonumber(ARGV[3]) then return redis.call('ZREM', key, ARGV[2]) end
return 0
`;
