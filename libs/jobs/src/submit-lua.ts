/**
 * The SUBMIT script: records a submitted job and dispatches it, in one step (see submission.ts). Built on lua.ts's
 * PRELUDE and claim step, called through its wrapper in engine-scripts.ts.
 */

import { ADMISSION_ARGC, ADMIT_STEP } from './admission';
import { NO_EXTRA } from './job-store';
import { CLAIM_STEP, PRELUDE } from './lua';

/**
 * What SUBMIT defines before its own steps (the prelude, the claim and the admission): Redis runs these definitions on
 * every call. The workers curve measures their cost alone (tools/bench/curves/script-cost.ts).
 */
export const SUBMIT_HELPERS = `${PRELUDE}${CLAIM_STEP}${ADMIT_STEP}`;

/**
 * Records a submitted job (its hash) and queues it, unless it claims it at once: a job claimed here is recorded
 * IN_PROGRESS and never enters its queue. ARGV ep, id, now, ttlAt ('' for the default ttl: the endpoint's queue member
 * in the expiry index stands for the job, see QUEUE_TTL_ID), low(0|1), a queued-job wake to publish ('' for none),
 * handOff (1|0), claimFor (a worker id, '' for none), the submission's Admission (admission.ts; a rate key '' for
 * none), then hash field/value pairs. With an admission, its counters are counted first and a refusal is returned as
 * ADMIT_STEP gives it, nothing recorded. With claimFor (a take parked on the submitting replica), the job is claimed
 * for that worker at once and the reply is the claim's {input, extra, traceparent}, or 'retired' (the job is queued)
 * when the worker was retired. With handOff, the job goes to the oldest take registered in `<ep>:takers` (TakerEntry,
 * see protocol/takers.ts and dispatch.ts) that has not expired and whose worker is not retired: it is claimed for it
 * here and a hand-off wake (HandOffWake, with the job's input and extra) is published on the take's replica's own
 * channel (LUA_HAND_OFF) instead of the queued-job wake. The queued-job wake is published only while a take is
 * registered (TAKE registers one atomically with finding the queue empty, so no other take can be waiting for the
 * job). Returns 0 (the id exists), 1 (queued) or 2 (handed to a registered take).
 */
export const SUBMIT = `${SUBMIT_HELPERS}
local ep, id, now, ttlAt, low, announce, handOff = ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5], ARGV[6], ARGV[7], ARGV[8]
local claimFor = ARGV[9]
local k = jkey(ep, id)
if redis.call('EXISTS', k) == 1 then return 0 end
if ARGV[10] ~= '' then
  local refused = admit(10)
  if refused then return refused end
end
redis.call('SADD', gkey('endpoints'), ep)
emit('job.queued', ep, 'jobId', id, 'lowPriority', low)
local FIELDS = ${10 + ADMISSION_ARGC}
-- A job not claimed here is recorded IN_QUEUE and queued before the script returns.
local function queue()
  redis.call('HSET', k, unpack(ARGV, FIELDS))
  enqueue(ep, id, now)
  if low == '1' then redis.call('SADD', ekey(ep, 'low'), id) end
  if ttlAt == '' then redis.call('ZADD', gkey('expiry'), 'NX', ttlAtOf(nil, now), member(ep, QUEUE_TTL))
  else redis.call('ZADD', gkey('expiry'), ttlAt, member(ep, id)) end
end
-- A job claimed here for worker \`wid\` never enters its queue: it is recorded IN_PROGRESS in one write, and the
-- claim's answer comes from the fields the script was given (no read of the record it just wrote).
local function claimNew(wid)
  local fields, f = { unpack(ARGV, FIELDS) }, {}
  for i = 1, #fields - 1, 2 do
    if fields[i] == 'status' then fields[i + 1] = 'IN_PROGRESS' end
    f[fields[i]] = fields[i + 1]
  end
  local n = #fields
  fields[n + 1], fields[n + 2], fields[n + 3], fields[n + 4] = 'workerId', wid, 'takenAt', now
  redis.call('HSET', k, unpack(fields))
  started(ep, id, wid, now, f.executionTimeoutMs, f.ttlAt, f.submittedAt)
  return { f.input, f.extra or '${NO_EXTRA}', f.traceparent or '' }
end
if claimFor ~= '' then
  if redis.call('EXISTS', retiredkey(ep, claimFor)) == 1 then
    queue()
    return 'retired'
  end
  return claimNew(claimFor)
end
if handOff == '1' then
  while true do
    local entry = redis.call('LPOP', ekey(ep, 'takers'))
    -- The list is empty: no take is registered, none to announce the job to.
    if not entry then
      queue()
      return 1
    end
    local origin, takeId, expiresAt, wid = parseTaker(entry)
    if origin and tonumber(expiresAt) > now and redis.call('EXISTS', retiredkey(ep, wid)) == 0 then
      local job = claimNew(wid)
      publishHandOff(origin, handOffWake(origin, takeId, ep, id, wid, job[1], job[2], job[3]))
      return 2
    end
  end
end
queue()
-- Only a registered take can be waiting for this job elsewhere: a take registers in the script that finds the queue
-- empty (TAKE), so one that has not registered yet will find the job queued.
if announce ~= '' and redis.call('EXISTS', ekey(ep, 'takers')) == 1 then wake(announce) end
return 1
`;
