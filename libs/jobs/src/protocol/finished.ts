/**
 * An entry of the finished-jobs stream `<base>finished` (XADD, capped near JOB_EVENTS_MAX_LEN entries), which the
 * `finish` step of the scripts appends to with each final status, for the job-router's metrics: one field,
 * {@link FINISHED_FIELD}, holding `<ep>|<status>|<queuedAt>|<takenAt>|<doneAt>` (ms since the epoch, engine clock;
 * takenAt empty for a job no worker took). One short field keeps each entry cheap to write and to read: the metrics
 * read every entry, while the engine's event stream (events.ts) carries every kind of change for the scheduler.
 */

/** The stream entry's only field. */
export const FINISHED_FIELD = 'f';

const SEP = '|';

/** A job that reached COMPLETED, FAILED, CANCELLED or TIMED_OUT. */
export interface FinishedJob {
  endpointId: string;
  status: string;
  /** When it was queued (its last time in the queue; submission when it never left it). */
  queuedAt: number;
  /** When a worker took it; undefined when none did. */
  takenAt?: number;
  doneAt: number;
}

/** The entry's field value of a finished job (the Lua `finishedEntry` writes the same). */
export function encodeFinished(job: FinishedJob): string {
  return [job.endpointId, job.status, job.queuedAt, job.takenAt ?? '', job.doneAt].join(SEP);
}

const ENTRY = /^([^|]+)\|([A-Z_]+)\|(\d+)\|(\d*)\|(\d+)$/;

/** Reads an entry's field value; undefined when it is not one. */
export function parseFinished(text: string): FinishedJob | undefined {
  const match = ENTRY.exec(text);
  if (!match) return undefined;
  const [, endpointId = '', status = '', queuedAt = '', takenAt = '', doneAt = ''] = match;
  return {
    endpointId,
    status,
    queuedAt: Number(queuedAt),
    ...(takenAt === '' ? {} : { takenAt: Number(takenAt) }),
    doneAt: Number(doneAt),
  };
}

/** Lua `finishedEntry(ep, status, queuedAt, takenAt, doneAt)`: the field value (`takenAt` '' when none). */
export const LUA_FINISHED = `
local function finishedEntry(ep, status, queuedAt, takenAt, doneAt)
  return ep .. '${SEP}' .. status .. '${SEP}' .. queuedAt .. '${SEP}' .. takenAt .. '${SEP}' .. doneAt
end
`;
