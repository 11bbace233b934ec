import { defineLuaScript, type Redis } from '@runplane/queue';
import { JobKeys, LUA_KEYS } from './protocol';

/** One worker as the engine's heartbeat view knows it. */
export interface EngineWorker {
  /** Last ping or take (ms since the epoch). */
  lastSeenAt: number;
  /** Jobs it holds now. */
  jobs: number;
}

/** What the autoscaler reads for an endpoint. */
export interface ScalingView {
  queued: number;
  /** Queued jobs that are not lowPriority. */
  scalingQueued: number;
  /** When the oldest non-lowPriority queued job was queued (ms since the epoch), or null. */
  oldestScalingQueuedAt: number | null;
  inProgress: number;
  workers: ReadonlyMap<string, EngineWorker>;
}

/** The view of an idle endpoint, or one the engine knows nothing of. */
export const EMPTY_VIEW: ScalingView = Object.freeze({
  queued: 0,
  scalingQueued: 0,
  oldestScalingQueuedAt: null,
  inProgress: 0,
  workers: new Map<string, EngineWorker>(),
});

/** How far into the queue the oldest non-lowPriority job is looked for. */
const SCAN = 1_000;
/** Endpoints read by one call of the script (each call holds Redis for about a millisecond per few hundred). */
const CHUNK = 500;

/**
 * Reads the scaling view of each endpoint in ARGV[3..] (ARGV[1] the key base, ARGV[2] how far to scan for the oldest
 * non-lowPriority job): per endpoint {queued, lowPriority queued, running, oldest scaling job's score or '',
 * {workerId, lastSeen, jobs held, ...}}, or 0 for an idle endpoint (no job queued or running, no worker heard from:
 * none of the three keys exists). An idle endpoint costs one EXISTS and a one-integer answer: a pass over thousands
 * of idle endpoints is one call per chunk, not a round trip each.
 */
const SCALING_VIEWS = defineLuaScript<{ base: string; endpointIds: string[] }, (RawView | 0)[]>(
  `local base = ARGV[1]
${LUA_KEYS}
local scan = tonumber(ARGV[2])
local out = {}
for i = 3, #ARGV do
  local ep = ARGV[i]
  if redis.call('EXISTS', ekey(ep, 'queued'), ekey(ep, 'workers'), ekey(ep, 'running')) == 0 then
    out[#out + 1] = 0
  else
  local queued = redis.call('ZCARD', ekey(ep, 'queued'))
  local low, oldest = 0, ''
  if queued > 0 then
    local lowKey = ekey(ep, 'low')
    low = redis.call('SCARD', lowKey)
    local head = redis.call('ZRANGE', ekey(ep, 'queued'), 0, low == 0 and 0 or scan - 1, 'WITHSCORES')
    for j = 1, #head, 2 do
      if low == 0 or redis.call('SISMEMBER', lowKey, head[j]) == 0 then
        oldest = head[j + 1]
        break
      end
    end
  end
  local seen = redis.call('ZRANGE', ekey(ep, 'workers'), 0, -1, 'WITHSCORES')
  local workers = {}
  for j = 1, #seen, 2 do
    workers[#workers + 1] = seen[j]
    workers[#workers + 1] = seen[j + 1]
    workers[#workers + 1] = tostring(redis.call('SCARD', wkey(ep, seen[j])))
  end
  out[#out + 1] = { queued, low, redis.call('SCARD', ekey(ep, 'running')), oldest, workers }
  end
end
return out`,
  (a) => ({ argv: [a.base, SCAN, ...a.endpointIds] }),
);

/** {queued, lowPriority queued, running, oldest scaling job's score or '', [workerId, lastSeen, jobs held, ...]}. */
type RawView = [number, number, number, string, string[]];

function toView(raw: RawView | 0 | undefined): ScalingView {
  if (!raw) return EMPTY_VIEW;
  const [queued, low, running, oldest, seen] = raw;
  const workers = new Map<string, EngineWorker>();
  for (let index = 0; index < seen.length; index += 3) {
    workers.set(seen[index] as string, { lastSeenAt: Number(seen[index + 1]), jobs: Number(seen[index + 2]) });
  }
  return {
    queued,
    scalingQueued: Math.max(0, queued - low),
    oldestScalingQueuedAt: oldest === '' ? null : Number(oldest),
    inProgress: running,
    workers,
  };
}

/**
 * Read-only view of the engine's keys for the scheduler's autoscaler: queue depth without lowPriority jobs, the age
 * of the oldest job that may scale up, and which workers hold jobs (the heartbeat view).
 */
export class JobScalingReader {
  private readonly keys: JobKeys;

  /** `redis` is a client WITHOUT keyPrefix; `prefix` the deployment's, as the engine uses it. */
  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = JobKeys.ofPrefix(prefix);
  }

  /** The engine's event stream key (`<prefix>jobs:events`), for XREAD. */
  get eventsKey(): string {
    return this.keys.events;
  }

  async view(endpointId: string): Promise<ScalingView> {
    return (await this.views([endpointId])).get(endpointId) as ScalingView;
  }

  /**
   * The views of many endpoints (a pass's), read in one script call per {@link CHUNK} endpoints. The calls are sent
   * at once (Redis runs them one after another, other clients' commands between them): no round trip waits for the
   * one before, and Redis reads the next chunk while this process decodes the last.
   */
  async views(endpointIds: readonly string[]): Promise<Map<string, ScalingView>> {
    const chunks: string[][] = [];
    for (let start = 0; start < endpointIds.length; start += CHUNK)
      chunks.push(endpointIds.slice(start, start + CHUNK));
    const reads = chunks.map((chunk) => SCALING_VIEWS.run(this.redis, { base: this.keys.base, endpointIds: chunk }));
    const views = new Map<string, ScalingView>();
    for (const [at, chunk] of chunks.entries()) {
      const read = await reads[at]!;
      chunk.forEach((endpointId, index) => views.set(endpointId, toView(read[index])));
    }
    return views;
  }
}
