import { normalizePrefix } from '@runplane/queue';

/**
 * The job engine's Redis key layout, for TypeScript and (through {@link LUA_KEYS}) for the Lua scripts. Every key is
 * under the engine's base `<prefix>jobs:`:
 * - per job: `<base><ep>:job:<id>` (the record, a hash), `<base><ep>:stream:<id>` (stream chunks not handed out, a list);
 * - per endpoint: `<base><ep>:<name>` for each {@link EndpointKey}, and per worker `<base><ep>:worker:<wid>` (the jobs
 *   it holds), `<base><ep>:stop:<wid>` (jobs it must stop), `<base><ep>:retired:<wid>` (a removed worker's mark);
 *   `<base><ep>:idem:<sha256>` (an Idempotency-Key);
 * - engine-wide: the {@link GlobalKey}s, whose sorted sets have {@link indexMember}s `<ep>/<id or wid>`.
 */

/** Per-endpoint keys, `<base><ep>:<name>`. */
export const ENDPOINT_KEYS = {
  /** Queued job ids, by queue time (zset). */
  queued: 'queued',
  /** Queued lowPriority job ids (set). */
  low: 'low',
  /** Running job ids (set). */
  running: 'running',
  /** Workers by last seen (zset). */
  workers: 'workers',
  /** Takes parked with nothing to take, as {@link TakerEntry}s (list). */
  takers: 'takers',
  /** The latest 1,000 job ids, by submission (zset). */
  recent: 'recent',
  /** Finished and retried counters (hash). */
  stats: 'stats',
  /**
   * Exists while some caller waits for a change of one of the endpoint's unfinished jobs that is not a /runsync job (a
   * /status-sync or /stream caller; a string whose expiry outlasts the wait): only then are those jobs' changes
   * published (see `jobChanged` and WATCH in lua.ts).
   */
  watched: 'watched',
} as const;

/** The name of a per-endpoint key. */
export type EndpointKey = keyof typeof ENDPOINT_KEYS;

/** Engine-wide keys, `<base><name>`. */
export const GLOBAL_KEYS = {
  /** When each job is deleted (zset of index members). */
  expiry: 'expiry',
  /** When each running job times out (zset of index members). */
  deadlines: 'deadlines',
  /** Workers by last seen (zset of index members). */
  workers: 'workers',
  /** Finished jobs whose webhook is not queued yet, by finish time (zset of index members). */
  outbox: 'outbox',
  /** Workers told to stop a job that have not asked for it yet, by the first request's time (zset). */
  stops: 'stops',
  /** Endpoints that ever had a job (set). */
  endpoints: 'endpoints',
  /** The stream of engine events (see events.ts). */
  events: 'events',
  /** The stream of finished jobs, for the job-router's metrics (see protocol/finished.ts). */
  finished: 'finished',
  /** The pub/sub channel of every wake message (see wake-messages.ts). */
  wake: 'wake',
} as const;

/** The name of an engine-wide key. */
export type GlobalKey = keyof typeof GLOBAL_KEYS;

const JOB = 'job';
const STREAM = 'stream';
const WORKER = 'worker';
const STOP = 'stop';
const RETIRED = 'retired';
const IDEMPOTENCY = 'idem';
/** Separates an index member's endpoint id from the job or worker id. */
const MEMBER_SEPARATOR = '/';

/**
 * The id part of an endpoint's member in the expiry index (`<ep>/~queue`) standing in for its queued jobs that have
 * the default ttl and were never taken: they sit in their queue in ttl order, so one member per endpoint does for
 * them all (see SWEEP_EXPIRED). No job id starts with `~`.
 */
export const QUEUE_TTL_ID = '~queue';

/** The engine's namespace under a deployment's Redis key prefix. */
const NAMESPACE = 'jobs:';

/** Where an engine keeps its keys: "<prefix>jobs:". */
export class JobKeys {
  constructor(readonly base: string) {}

  /** The engine's keys under a deployment's Redis key prefix (`<prefix>jobs:`). */
  static ofPrefix(prefix: string): JobKeys {
    return new JobKeys(`${normalizePrefix(prefix)}${NAMESPACE}`);
  }

  /** The engine's keys as seen through a client that adds the deployment's prefix itself (ioredis keyPrefix). */
  static forPrefixedClient(): JobKeys {
    return new JobKeys(NAMESPACE);
  }

  /** A job's record (hash). */
  job(endpointId: string, id: string): string {
    return `${this.base}${endpointId}:${JOB}:${id}`;
  }

  /** A job's stream chunks not handed out yet (list). */
  stream(endpointId: string, id: string): string {
    return `${this.endpointPrefix(endpointId)}${STREAM}:${id}`;
  }

  /** One of an endpoint's {@link ENDPOINT_KEYS}. */
  endpoint(endpointId: string, name: EndpointKey): string {
    return `${this.base}${endpointId}:${ENDPOINT_KEYS[name]}`;
  }

  /** The prefix of every key of an endpoint (for its purge). */
  endpointPrefix(endpointId: string): string {
    return `${this.base}${endpointId}:`;
  }

  /** The jobs a worker holds (set). */
  workerJobs(endpointId: string, workerId: string): string {
    return `${this.endpointPrefix(endpointId)}${WORKER}:${workerId}`;
  }

  /** The jobs a worker must stop (set). */
  stops(endpointId: string, workerId: string): string {
    return `${this.endpointPrefix(endpointId)}${STOP}:${workerId}`;
  }

  /** A retired worker's mark (string: when it was retired). */
  retired(endpointId: string, workerId: string): string {
    return `${this.endpointPrefix(endpointId)}${RETIRED}:${workerId}`;
  }

  /** An endpoint's Idempotency-Key, by the digest of the client's key. */
  idempotency(endpointId: string, digest: string): string {
    return `${this.endpointPrefix(endpointId)}${IDEMPOTENCY}:${digest}`;
  }

  /** One of the engine-wide {@link GLOBAL_KEYS}. */
  global(name: GlobalKey): string {
    return `${this.base}${GLOBAL_KEYS[name]}`;
  }

  get wakeChannel(): string {
    return this.global('wake');
  }

  /** Finished jobs whose webhook is not queued yet (see webhook-outbox.ts). */
  get outbox(): string {
    return this.global('outbox');
  }

  /** The Redis stream of engine events (see events.ts). */
  get events(): string {
    return this.global('events');
  }
}

/** The member of an engine-wide index (expiry, deadlines, workers, outbox, stops): `<ep>/<id or workerId>`. */
export function indexMember(endpointId: string, id: string): string {
  return `${endpointId}${MEMBER_SEPARATOR}${id}`;
}

/** Reads an {@link indexMember}; undefined when it is not one. */
export function parseIndexMember(member: string): { endpointId: string; id: string } | undefined {
  const at = member.indexOf(MEMBER_SEPARATOR);
  if (at <= 0 || at === member.length - 1) return undefined;
  return { endpointId: member.slice(0, at), id: member.slice(at + 1) };
}

/** The index members of an endpoint start with this (for its purge). */
export function indexMemberPrefix(endpointId: string): string {
  return `${endpointId}${MEMBER_SEPARATOR}`;
}

/**
 * The same layout as Lua functions, for the scripts (`base` is in scope): `jkey(ep, id)`, `skey(ep, id)` (stream),
 * `ekey(ep, name)`, `wkey(ep, wid)` (a worker's jobs), `stopkey(ep, wid)`, `retiredkey(ep, wid)`, `gkey(name)`,
 * `member(ep, id)` and `split(member)`.
 */
export const LUA_KEYS = `
local function ekey(ep, name) return base .. ep .. ':' .. name end
local function jkey(ep, id) return base .. ep .. ':${JOB}:' .. id end
local function skey(ep, id) return ekey(ep, '${STREAM}:' .. id) end
local function wkey(ep, wid) return ekey(ep, '${WORKER}:' .. wid) end
local function stopkey(ep, wid) return ekey(ep, '${STOP}:' .. wid) end
local function retiredkey(ep, wid) return ekey(ep, '${RETIRED}:' .. wid) end
local function gkey(name) return base .. name end
local function member(ep, id) return ep .. '${MEMBER_SEPARATOR}' .. id end
local function split(m) return string.match(m, '^([^${MEMBER_SEPARATOR}]+)${MEMBER_SEPARATOR}(.+)$') end
local QUEUE_TTL = '${QUEUE_TTL_ID}'
`;
