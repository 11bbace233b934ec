/**
 * Lua scripts of what a job and its worker report while it runs: its streamed output and the callers watching it, the
 * stop requests its worker drains and the worker's heartbeat. Built on lua.ts's PRELUDE, called through their wrappers
 * in engine-scripts.ts.
 */

import { PRELUDE } from './lua';

/** ARGV ep, id, workerId, chunks... Appends stream chunks of a running job; returns missing, ignored or ok. */
export const APPEND_STREAM = `${PRELUDE}
local ep, id, wid = ARGV[2], ARGV[3], ARGV[4]
local f = redis.call('HMGET', jkey(ep, id), 'status', 'workerId', 'sync')
if not f[1] then return 'missing' end
if f[1] ~= 'IN_PROGRESS' or f[2] ~= wid then return 'ignored' end
redis.call('RPUSH', skey(ep, id), unpack(ARGV, 5))
jobChanged(ep, id, f[3])
return 'ok'
`;

/**
 * ARGV ep, id, ttlMs. Marks the endpoint `watched` for `ttlMs` (only ever raising the mark's expiry) when the job exists
 * and has not finished, so its changes are published while a caller waits for them (see jobChanged); a finished or
 * missing job marks nothing. Returns 1 when it marked, else 0.
 */
export const WATCH = `${PRELUDE}
local ep, id, ttl = ARGV[2], ARGV[3], ARGV[4]
local status = redis.call('HGET', jkey(ep, id), 'status')
if not status or TERMINAL[status] then return 0 end
local key = ekey(ep, 'watched')
if not redis.call('SET', key, '1', 'PX', ttl, 'NX') then redis.call('PEXPIRE', key, ttl, 'GT') end
return 1
`;

/** ARGV ep, id. Hands out (and forgets) every chunk not handed out yet: {status, chunks} or nil when missing. */
export const DRAIN_STREAM = `${PRELUDE}
local ep, id = ARGV[2], ARGV[3]
local status = redis.call('HGET', jkey(ep, id), 'status')
if not status then return false end
local s = skey(ep, id)
local chunks = redis.call('LRANGE', s, 0, -1)
redis.call('DEL', s)
return { status, chunks }
`;

/** ARGV ep, workerId. Hands out (and forgets) the jobs the worker must stop. */
export const DRAIN_STOPS = `${PRELUDE}
local s = stopkey(ARGV[2], ARGV[3])
local ids = redis.call('SMEMBERS', s)
redis.call('DEL', s)
redis.call('ZREM', gkey('stops'), member(ARGV[2], ARGV[3]))
return ids
`;

/** ARGV ep, workerId, now. */
export const HEARTBEAT = `${PRELUDE}
local ep, wid, now = ARGV[2], ARGV[3], ARGV[4]
redis.call('ZADD', gkey('workers'), now, member(ep, wid))
redis.call('ZADD', ekey(ep, 'workers'), now, wid)
return 1
`;
