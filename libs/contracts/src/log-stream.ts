import { z } from 'zod';

/**
 * Pod and worker log streams between the gateway and the scheduler, over Redis pub/sub. The gateway subscribes to
 * the stream's own channel, then publishes an open request; one scheduler replica claims it (a Redis key set once),
 * reads the compute driver's logs and publishes batches of lines to the stream's channel until the gateway publishes
 * a close (its client went away) or stops listening (a publish that reaches nobody ends the stream).
 */

/** Lines sent before following when neither `Last-Event-ID` nor `since` says otherwise. */
export const LOG_TAIL_DEFAULT = 100;
/** Most lines one request may ask for. */
export const LOG_TAIL_MAX = 5000;

export const logSource = z.enum(['container', 'system']);
/** Where a line comes from: the container's output, or the platform (scheduling, pulls, starts, exits). */
export type LogSource = z.infer<typeof logSource>;

/**
 * A line's position, `<ns>/<seq>`: nanoseconds since the epoch of its timestamp and a sequence number that orders
 * lines with the same timestamp (for local workloads, whose output carries no timestamps, the line number).
 */
export interface LogCursor {
  ns: bigint;
  seq: number;
}

/** Formats a cursor as the SSE event id. */
export function formatLogCursor(cursor: LogCursor): string {
  return `${cursor.ns}/${cursor.seq}`;
}

/** Parses an SSE event id; null when it is not one this server sent. */
export function parseLogCursor(id: string): LogCursor | null {
  const match = /^(\d{1,22})\/(\d{1,15})$/.exec(id.trim());
  if (!match) return null;
  return { ns: BigInt(match[1] as string), seq: Number(match[2]) };
}

/** True when `a` comes after `b`. */
export function logCursorAfter(a: LogCursor, b: LogCursor): boolean {
  return a.ns > b.ns || (a.ns === b.ns && a.seq > b.seq);
}

export const logLine = z.object({
  /** The SSE event id ({@link formatLogCursor}). */
  id: z.string(),
  /** RFC 3339 with up to nanosecond precision. */
  ts: z.string(),
  source: logSource,
  line: z.string(),
});
/** One line of a log stream. */
export type LogLine = z.infer<typeof logLine>;

export const logStreamOpen = z.object({
  streamId: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/),
  podId: z.string().min(1),
  /** Lines of backfill before following (0..LOG_TAIL_MAX). */
  tail: z.number().int().min(0).max(LOG_TAIL_MAX),
  /** RFC 3339: backfill starts here. */
  since: z.string().nullable(),
  /** The cursor of the last line the client has (`Last-Event-ID`): backfill resumes after it, tail ignored. */
  after: z.string().nullable(),
  sources: z.array(logSource).min(1),
});
/** The gateway's request to open a stream. */
export type LogStreamOpen = z.infer<typeof logStreamOpen>;

export const logStreamMessage = z.discriminatedUnion('type', [
  /** A scheduler replica took the stream. */
  z.object({ type: z.literal('opened') }),
  z.object({ type: z.literal('lines'), lines: z.array(logLine) }),
  /** Sent when the stream is quiet, so a gateway that went away is noticed (its publish reaches nobody). */
  z.object({ type: z.literal('heartbeat') }),
  /** The stream ended on the scheduler's side (the driver failed); the gateway ends the response. */
  z.object({ type: z.literal('error'), message: z.string() }),
]);
/** What the scheduler publishes on a stream's channel. */
export type LogStreamMessage = z.infer<typeof logStreamMessage>;

/** Channel and key names of the log streams, namespaced by the deployment's Redis prefix. */
export function logStreamChannels(redisPrefix: string): {
  open: string;
  close: string;
  out: (streamId: string) => string;
  claim: (streamId: string) => string;
} {
  const base = `${redisPrefix.replace(/:+$/, '')}:scheduler.logs`;
  return {
    open: `${base}.open`,
    close: `${base}.close`,
    out: (streamId) => `${base}.out.${streamId}`,
    claim: (streamId) => `${base}.claim.${streamId}`,
  };
}
