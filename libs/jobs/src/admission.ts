/**
 * Admission: the counters a submission is counted against in the very script that records it (SUBMIT), so a request
 * whose limits are counted costs one round trip, not a count and then a record. What the counters mean (an endpoint's
 * rate and concurrency limits) is the caller's business; the engine counts them and records the job only when both
 * admit it. The counters are rate-limiter-flexible's (the same steps as the job-router's limiter, which shares
 * {@link COUNT_STEP}), so a request counted here and one counted by the limiter count on the same keys.
 */

/** The counters one submission is counted against, before anything is recorded. */
export interface Admission {
  /** The rate counter's key (requests in the current window). */
  rateKey: string;
  /** The slot counter's key (requests under way). */
  busyKey: string;
  /** The window's length; 0: the rate is not counted (e.g. counted already, see {@link SubmissionRefused}). */
  windowSeconds: number;
  /** Longest a slot is held (the slot counter's expiry); 0: no slot is taken. */
  holdSeconds: number;
  /** Most requests the window admits: the job is not recorded when the count goes over it. */
  maxRequests: number;
  /** Most slots held at once: the job is not recorded (and the slot is given back) when the count goes over it. */
  maxConcurrent: number;
  /** Slots given back since the counter's last call, counted off before anything else. */
  givenBack: number;
}

/** Which counter refused a submission, with what it counted. */
export type Refusal = { counter: 'rate'; consumed: number; msLeft: number } | { counter: 'concurrency'; held: number };

/**
 * A submission its admission refused: nothing was recorded and no slot is held. Over the rate, the request stays
 * counted (as a refused request does with the limiter); a caller that admits it after all (a higher limit than the one
 * it passed) submits again with the rate not counted ({@link Admission.windowSeconds} 0).
 */
export class SubmissionRefused extends Error {
  constructor(readonly refusal: Refusal) {
    super(`Submission refused by its ${refusal.counter} counter`);
    this.name = 'SubmissionRefused';
  }
}

/**
 * One counter: created at 0 with its window's expiry unless it exists, raised by the points (lowered when they are
 * negative), and read with the milliseconds left in its window (a counter found without an expiry gets one). Errors
 * (a key of another type) are returned, not raised, so the caller decides what is undone. `giveBack` counts slots
 * given back off a slot counter (nothing for none): the counter's error, else nil.
 */
export const COUNT_STEP = `
local function count(key, points, seconds)
  local made = redis.pcall('SET', key, 0, 'EX', seconds, 'NX')
  if type(made) == 'table' and made.err then return made end
  local consumed = redis.pcall('INCRBY', key, points)
  if type(consumed) == 'table' then return consumed end
  local ttl = redis.call('PTTL', key)
  if ttl == -1 then
    redis.call('EXPIRE', key, seconds)
    ttl = 1000 * seconds
  end
  return {consumed, ttl}
end
local function giveBack(key, points, seconds)
  if points <= 0 then return nil end
  local given = count(key, -points, seconds)
  if given.err then return given end
  return nil
end
`;

/** Lua's refusal reply: its first element is this marker (no claim's first element, a job's input JSON, can be it). */
const REFUSED = 'refused';

/**
 * The admission step: `admit(i)` counts the Admission whose fields start at ARGV[i] (in the order of
 * {@link admissionArgv}). Returns nil when admitted; else the reply to return at once: a counter's error, or
 * {'refused', 'rate', consumed, msLeft} / {'refused', 'concurrency', held}. The slots given back go first; over the
 * rate, no slot is taken; over the concurrency, the slot just taken is given back.
 */
export const ADMIT_STEP = `${COUNT_STEP}
local function admit(i)
  local rateKey, busyKey = ARGV[i], ARGV[i + 1]
  local windowSeconds, holdSeconds = tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3])
  local maxRequests, maxConcurrent, givenBack = tonumber(ARGV[i + 4]), tonumber(ARGV[i + 5]), tonumber(ARGV[i + 6])
  local failed = giveBack(busyKey, givenBack, holdSeconds)
  if failed then return failed end
  if windowSeconds > 0 then
    local rate = count(rateKey, 1, windowSeconds)
    if rate.err then return rate end
    if rate[1] > maxRequests then return {'${REFUSED}', 'rate', rate[1], rate[2]} end
  end
  if holdSeconds > 0 then
    local slots = count(busyKey, 1, holdSeconds)
    if slots.err then return slots end
    if slots[1] > maxConcurrent then
      redis.call('DECRBY', busyKey, 1)
      return {'${REFUSED}', 'concurrency', slots[1] - 1}
    end
  end
  return nil
end
`;

/** How many ARGV an admission takes. */
export const ADMISSION_ARGC = 7;

/** An admission as ARGV (all empty strings and zeros for none, which the script does not count). */
export function admissionArgv(admission: Admission | undefined): (string | number)[] {
  if (!admission) return ['', '', 0, 0, 0, 0, 0];
  const { rateKey, busyKey, windowSeconds, holdSeconds, maxRequests, maxConcurrent, givenBack } = admission;
  return [rateKey, busyKey, windowSeconds, holdSeconds, maxRequests, maxConcurrent, givenBack];
}

/** A refusal reply of the admission step. */
export type RefusedReply = [typeof REFUSED, 'rate', number, number] | [typeof REFUSED, 'concurrency', number];

/** Whether a script's reply is the admission step's refusal. */
export function isRefusedReply(reply: unknown): reply is RefusedReply {
  return Array.isArray(reply) && reply[0] === REFUSED;
}

/** What a refusal reply says. */
export function refusalOf(reply: RefusedReply): Refusal {
  return reply[1] === 'rate'
    ? { counter: 'rate', consumed: Number(reply[2]), msLeft: Number(reply[3]) }
    : { counter: 'concurrency', held: Number(reply[2]) };
}
