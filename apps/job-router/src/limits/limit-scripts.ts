import { COUNT_STEP } from '@runplane/jobs';
import { defineLuaScript } from '@runplane/queue';

/** What one batch of acquires counted: requests in the window and held slots (each null when not counted). */
type Counted = [rate: [consumed: number, msLeft: number] | null, held: number | null];

/**
 * The scripts behind the limits. The counters are those rate-limiter-flexible's RateLimiterRedis keeps (same keys and
 * steps), so replicas of earlier versions share them during an upgrade; both counters of a batch are counted in one
 * call, with the slots given back since the last call. KEYS: the rate and the slot counter. ARGV: points, the
 * window's seconds (0: rate not counted), the hold's seconds (0: slots not counted), slots given back. The slots are
 * given back first; then the rate is counted: when its counter fails, no slot is taken; when the slot counter fails,
 * the rate stays counted, as for a request refused after it was counted.
 */
export const LIMIT_SCRIPTS = {
  count: defineLuaScript<
    {
      rateKey: string;
      busyKey: string;
      points: number;
      windowSeconds: number;
      holdSeconds: number;
      givenBack: number;
    },
    Counted
  >(
    `${COUNT_STEP}
local points, windowSeconds, holdSeconds = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local givenBack = tonumber(ARGV[4])
local rate, held = false, false
local failed = giveBack(KEYS[2], givenBack, holdSeconds)
if failed then return failed end
if windowSeconds > 0 then
  rate = count(KEYS[1], points, windowSeconds)
  if rate.err then return rate end
end
if holdSeconds > 0 then
  local slots = count(KEYS[2], points, holdSeconds)
  if slots.err then return slots end
  held = slots[1]
end
return {rate, held}
`,
    (a) => ({
      keys: [a.rateKey, a.busyKey],
      argv: [a.points, a.windowSeconds, a.holdSeconds, a.givenBack],
    }),
  ),
  /** Gives back slots: KEYS the slot counter, ARGV points and the hold's seconds. */
  giveBack: defineLuaScript<{ busyKey: string; points: number; holdSeconds: number }, unknown>(
    `${COUNT_STEP}
local failed = giveBack(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]))
if failed then return failed end
return 1
`,
    (a) => ({ keys: [a.busyKey], argv: [a.points, a.holdSeconds] }),
  ),
};
