import { PRELUDE } from './lua';
import { JOB_POLICY_LIMITS } from './policy';

/** Execution timeouts: ARGV now, limit. Marks due IN_PROGRESS jobs TIMED_OUT, tells their workers; returns [ep, id, ...]. */
export const SWEEP_TIMEOUTS = `${PRELUDE}
local now, limit = tonumber(ARGV[2]), ARGV[3]
local out = {}
for _, m in ipairs(redis.call('ZRANGEBYSCORE', gkey('deadlines'), '-inf', now, 'LIMIT', 0, limit)) do
  local ep, id = split(m)
  local f = redis.call('HMGET', jkey(ep, id), 'status', 'workerId', 'executionTimeoutMs')
  if f[1] == 'IN_PROGRESS' then
    finish(ep, id, 'TIMED_OUT', now, { 'error', 'job timed out after ' .. timeoutOf(f[3]) .. ' ms (executionTimeout)' })
    stop(ep, f[2], id, now)
    table.insert(out, ep)
    table.insert(out, id)
  else
    redis.call('ZREM', gkey('deadlines'), m)
  end
end
return out
`;

/**
 * TTL and retention: ARGV now, limit. Deletes due jobs in any state (a queued one leaves its queue, a running one's
 * worker is told to stop); returns how many index members it handled. An endpoint's queue member (`<ep>/~queue`, see
 * QUEUE_TTL_ID) deletes the queued jobs standing behind it whose default ttl ran out, from the head of the queue (its
 * jobs with a member of their own are left to it), and is then due again when the next of them is.
 */
export const SWEEP_EXPIRED = `${PRELUDE}
local now, limit = tonumber(ARGV[2]), tonumber(ARGV[3])
local left = limit
local function expire(ep, id)
  local k = jkey(ep, id)
  local m = member(ep, id)
  local f = redis.call('HMGET', k, 'status', 'workerId', 'lowPriority')
  if f[1] == 'IN_PROGRESS' and f[2] then
    redis.call('SREM', wkey(ep, f[2]), id)
    stop(ep, f[2], id, now)
  end
  redis.call('DEL', k, skey(ep, id))
  unqueue(ep, id, f[3])
  redis.call('SREM', ekey(ep, 'running'), id)
  redis.call('ZREM', ekey(ep, 'recent'), id)
  redis.call('ZREM', gkey('deadlines'), m)
  redis.call('ZREM', gkey('expiry'), m)
  if f[1] then
    emit('job.expired', ep, 'jobId', id, 'status', f[1])
    wake(jobChangedWake(ep, id))
  end
end
-- A queued job's score is its submission time (a whole ms), or a fraction of a ms after it when others were queued in
-- the same ms, so a job of the default ttl due now scores below cutoff + 1. (More than 1,024 jobs in one ms, or
-- replicas whose clocks differ, put a job's score further after its submission: it is deleted that much later, never
-- earlier.) Jobs with their own member (a ttl of their own, or taken once) are skipped: up to the budget, a head of
-- them holds up the rest, which stay due.
local function expireQueue(ep, m)
  local q = ekey(ep, 'queued')
  local below = string.format('(%.17g', now - ${JOB_POLICY_LIMITS.ttl.default} + 1)
  local skipped = 0
  while left > 0 do
    local ids = redis.call('ZRANGEBYSCORE', q, '-inf', below, 'LIMIT', skipped, left)
    if #ids == 0 then break end
    for _, id in ipairs(ids) do
      left = left - 1
      if redis.call('ZSCORE', gkey('expiry'), member(ep, id)) then skipped = skipped + 1 else expire(ep, id) end
    end
  end
  local next = redis.call('ZRANGEBYSCORE', q, '-inf', '+inf', 'WITHSCORES', 'LIMIT', skipped, 1)
  if next[1] then redis.call('ZADD', gkey('expiry'), math.floor(tonumber(next[2])) + ${JOB_POLICY_LIMITS.ttl.default}, m)
  else redis.call('ZREM', gkey('expiry'), m) end
end
local due = redis.call('ZRANGEBYSCORE', gkey('expiry'), '-inf', now, 'LIMIT', 0, limit)
for _, m in ipairs(due) do
  local ep, id = split(m)
  if id == QUEUE_TTL then expireQueue(ep, m)
  elseif left > 0 then
    left = left - 1
    expire(ep, id)
  end
end
return #due
`;

/**
 * Stops not heeded: ARGV cutoff, limit. A worker told to stop a job before `cutoff` that has not asked for its stop
 * requests since has no job-stop channel (RunPod's worker SDK before 1.10.0): the job runs on there, and only
 * recycling the worker ends it. Emits `worker.refresh` for each such worker and forgets its requests; returns
 * [ep, workerId, ...].
 */
export const SWEEP_UNHEEDED_STOPS = `${PRELUDE}
local cutoff, limit = ARGV[2], ARGV[3]
local out = {}
for _, m in ipairs(redis.call('ZRANGEBYSCORE', gkey('stops'), '-inf', cutoff, 'LIMIT', 0, limit)) do
  local ep, wid = split(m)
  local s = stopkey(ep, wid)
  local ids = redis.call('SMEMBERS', s)
  redis.call('DEL', s)
  redis.call('ZREM', gkey('stops'), m)
  if #ids > 0 then
    emit('worker.refresh', ep, 'workerId', wid, 'reason', 'did not stop job ' .. table.concat(ids, ', ') .. ' when told to (no job-stop channel)')
    table.insert(out, ep)
    table.insert(out, wid)
  end
end
return out
`;

/**
 * Lua fragment: puts a running job back in its queue (retries + 1), or fails it once it was retried `maxRetries`
 * times. Expects `now`, `maxRetries`, `requeued` and `failed` in scope.
 */
const REQUEUE = `
local function requeue(ep, id, k, f, wid, why)
  local retries = tonumber(f[3] or '0')
  if retries >= maxRetries then
    finish(ep, id, 'FAILED', now, { 'error', 'worker ' .. wid .. ' ' .. why .. ', and the job was already retried ' .. retries .. ' times' })
    table.insert(failed, ep)
    table.insert(failed, id)
    return
  end
  redis.call('HSET', k, 'status', 'IN_QUEUE', 'retries', retries + 1, 'queuedAt', now, 'lastWorkerId', wid)
  redis.call('HDEL', k, 'workerId', 'takenAt', 'output')
  redis.call('DEL', skey(ep, id))
  enqueue(ep, id, now)
  if f[4] == '1' then redis.call('SADD', ekey(ep, 'low'), id) end
  redis.call('SREM', ekey(ep, 'running'), id)
  redis.call('ZREM', gkey('deadlines'), member(ep, id))
  redis.call('HINCRBY', ekey(ep, 'stats'), 'retried', 1)
  emit('job.requeued', ep, 'jobId', id, 'workerId', wid, 'retries', retries + 1)
  table.insert(requeued, ep)
  table.insert(requeued, id)
end
`;

/**
 * Lost workers: ARGV now, cutoff, maxRetries, limit. For each worker not seen since `cutoff`, re-queues its running
 * jobs (retries + 1) or fails those already retried maxRetries times. Returns {[ep, id, ...] re-queued, [ep, id, ...] failed}.
 */
export const SWEEP_LOST_WORKERS = `${PRELUDE}
local now, cutoff, maxRetries, limit = tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4]), ARGV[5]
local requeued, failed = {}, {}
${REQUEUE}for _, m in ipairs(redis.call('ZRANGEBYSCORE', gkey('workers'), '-inf', cutoff, 'LIMIT', 0, limit)) do
  local ep, wid = split(m)
  local wk = wkey(ep, wid)
  for _, id in ipairs(redis.call('SMEMBERS', wk)) do
    local k = jkey(ep, id)
    local f = redis.call('HMGET', k, 'status', 'workerId', 'retries', 'lowPriority')
    if f[1] == 'IN_PROGRESS' and f[2] == wid then requeue(ep, id, k, f, wid, 'stopped responding while running the job') end
  end
  redis.call('DEL', wk, stopkey(ep, wid))
  redis.call('ZREM', gkey('stops'), m)
  redis.call('ZREM', gkey('workers'), m)
  redis.call('ZREM', ekey(ep, 'workers'), wid)
  emit('worker.lost', ep, 'workerId', wid)
end
return { requeued, failed }
`;

/**
 * A live worker's report of the jobs it holds (ping `job_id`): ARGV ep, wid, now, takenBefore, maxRetries, ...held.
 * A job the engine gave this worker before `takenBefore` that the worker does not report never reached it (the
 * take's answer was lost, e.g. the router died mid-response): it is re-queued like a lost worker's job.
 * Returns {[ep, id, ...] re-queued, [ep, id, ...] failed}.
 */
export const RECONCILE_WORKER = `${PRELUDE}
local ep, wid, now, takenBefore, maxRetries = ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local requeued, failed = {}, {}
${REQUEUE}
local held = {}
for i = 7, #ARGV do held[ARGV[i]] = true end
for _, id in ipairs(redis.call('SMEMBERS', wkey(ep, wid))) do
  if not held[id] then
    local k = jkey(ep, id)
    local f = redis.call('HMGET', k, 'status', 'workerId', 'retries', 'lowPriority', 'takenAt')
    if f[1] == 'IN_PROGRESS' and f[2] == wid and tonumber(f[5] or now) <= takenBefore then
      requeue(ep, id, k, f, wid, 'no longer reports the job it was given')
      redis.call('SREM', wkey(ep, wid), id)
    end
  end
end
return { requeued, failed }
`;
