/**
 * Every message published on the engine's wake channel (`<base>wake`, Redis pub/sub), with its encoder and parser; a
 * hand-off goes on its take's replica's own channel instead (`<base>wake:<origin>`, see handOffChannel).
 * Fields are separated by `|`; the last field of the first line takes the rest of it (worker ids may hold `|`):
 * - `t|<ep>|<origin>|<jobId>` ({@link QueuedWake}): a job of the endpoint was queued; `jobId` may be absent.
 * - `j|<ep>|<jobId>` ({@link JobChangedWake}): a job changed (finished, progressed, streamed, expired).
 * - `s|<ep>|<workerId>` ({@link StopWake}): a worker has a job to stop.
 * - `h|<origin>|<takeId>|<ep>|<jobId>|<workerId>` then the job's input and extra (JSON) and its traceparent (may be
 *   empty) on a line each ({@link HandOffWake}): a job claimed for a take parked on the replica `origin`.
 * The Lua scripts build theirs with the functions of {@link LUA_WAKES}, generated from the same constants.
 */

/** The first field of each message type. */
export const WAKE_PREFIXES = { queued: 't', jobChanged: 'j', stopRequested: 's', handOff: 'h' } as const;

const SEP = '|';
const LINE = '\n';

/** A job was queued on the replica `origin` (`jobId` when the wake names it: a woken take claims it by id). */
export interface QueuedWake {
  type: 'queued';
  endpointId: string;
  /** The replica that published it ('' when unknown): a replica skips its own queued-job wakes. */
  origin: string;
  jobId?: string;
}

/** A job changed: callers waiting for it (status-sync, stream) look again. */
export interface JobChangedWake {
  type: 'jobChanged';
  endpointId: string;
  jobId: string;
}

/** A worker was told to stop a job: its job-stop poll looks again. */
export interface StopWake {
  type: 'stopRequested';
  endpointId: string;
  workerId: string;
}

/** A job claimed for the take `takeId` parked on the replica `origin`, with what the take answers. */
export interface HandOffWake {
  type: 'handOff';
  origin: string;
  takeId: string;
  endpointId: string;
  jobId: string;
  workerId: string;
  /** The job's input, JSON. */
  input: string;
  /** The job's other top-level keys, JSON. */
  extra: string;
  /** The job's W3C traceparent ('' when it has none). */
  traceparent: string;
}

/** Any message on the wake channel. */
export type WakeMessage = QueuedWake | JobChangedWake | StopWake | HandOffWake;

function assertNever(value: never): never {
  throw new Error(`Unknown wake message ${JSON.stringify(value)}`);
}

/** The text published for `message`. */
export function encodeWake(message: WakeMessage): string {
  switch (message.type) {
    case 'queued': {
      const head = `${WAKE_PREFIXES.queued}${SEP}${message.endpointId}${SEP}${message.origin}`;
      return message.jobId === undefined ? head : `${head}${SEP}${message.jobId}`;
    }
    case 'jobChanged':
      return `${WAKE_PREFIXES.jobChanged}${SEP}${message.endpointId}${SEP}${message.jobId}`;
    case 'stopRequested':
      return `${WAKE_PREFIXES.stopRequested}${SEP}${message.endpointId}${SEP}${message.workerId}`;
    case 'handOff': {
      const { origin, takeId, endpointId, jobId, workerId } = message;
      const head = [WAKE_PREFIXES.handOff, origin, takeId, endpointId, jobId, workerId].join(SEP);
      return [head, message.input, message.extra, message.traceparent].join(LINE);
    }
    default:
      return assertNever(message);
  }
}

/** Splits `text` into `count` fields, the last taking the rest; undefined when it has fewer. */
function fields(text: string, count: number): string[] | undefined {
  const parts = text.split(SEP);
  if (parts.length < count) return undefined;
  return [...parts.slice(0, count - 1), parts.slice(count - 1).join(SEP)];
}

function parseHandOff(text: string): HandOffWake | undefined {
  const [head = '', input, extra, traceparent = ''] = text.split(LINE);
  const parts = fields(head, 6);
  if (!parts || input === undefined || extra === undefined) return undefined;
  const [, origin = '', takeId = '', endpointId = '', jobId = '', workerId = ''] = parts;
  return { type: 'handOff', origin, takeId, endpointId, jobId, workerId, input, extra, traceparent };
}

function parseQueued(text: string): QueuedWake | undefined {
  const [, endpointId = '', origin = '', ...rest] = text.split(SEP);
  if (endpointId === '') return undefined;
  return rest.length === 0
    ? { type: 'queued', endpointId, origin }
    : { type: 'queued', endpointId, origin, jobId: rest.join(SEP) };
}

/** Reads a published message; undefined when it is none of {@link WakeMessage}. */
export function parseWake(text: string): WakeMessage | undefined {
  switch (text.slice(0, 2)) {
    case `${WAKE_PREFIXES.queued}${SEP}`:
      return parseQueued(text);
    case `${WAKE_PREFIXES.jobChanged}${SEP}`: {
      const [, endpointId = '', jobId = ''] = fields(text, 3) ?? [];
      return endpointId && jobId ? { type: 'jobChanged', endpointId, jobId } : undefined;
    }
    case `${WAKE_PREFIXES.stopRequested}${SEP}`: {
      const [, endpointId = '', workerId = ''] = fields(text, 3) ?? [];
      return endpointId && workerId ? { type: 'stopRequested', endpointId, workerId } : undefined;
    }
    case `${WAKE_PREFIXES.handOff}${SEP}`:
      return parseHandOff(text);
    default:
      return undefined;
  }
}

/**
 * Lua builders of the messages the scripts publish: `jobChangedWake(ep, id)`, `stopWake(ep, wid)` and
 * `handOffWake(origin, takeId, ep, id, wid, input, extra, traceparent)`. (Queued-job wakes are encoded by the engine and passed in.)
 */
export const LUA_WAKES = `
local function jobChangedWake(ep, id) return '${WAKE_PREFIXES.jobChanged}${SEP}' .. ep .. '${SEP}' .. id end
local function stopWake(ep, wid) return '${WAKE_PREFIXES.stopRequested}${SEP}' .. ep .. '${SEP}' .. wid end
local function handOffWake(origin, takeId, ep, id, wid, input, extra, traceparent)
  local head = table.concat({ '${WAKE_PREFIXES.handOff}', origin, takeId, ep, id, wid }, '${SEP}')
  return head .. '\\n' .. input .. '\\n' .. extra .. '\\n' .. traceparent
end
`;
