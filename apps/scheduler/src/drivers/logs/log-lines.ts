import { formatLogCursor, type LogCursor, type LogLine, type LogSource } from '@runplane/contracts';

const NS_PER_MS = 1_000_000n;

/** Nanoseconds since the epoch of a date. */
export function nsOfDate(date: Date): bigint {
  return BigInt(date.getTime()) * NS_PER_MS;
}

/**
 * Nanoseconds since the epoch of an RFC 3339 timestamp with up to nine fraction digits (what the kubelet prefixes
 * lines with); null when it is not one.
 */
export function nsOfTimestamp(text: string): bigint | null {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(text);
  if (!match) return null;
  const seconds = Date.parse(`${match[1]}${match[3]}`);
  if (Number.isNaN(seconds)) return null;
  const fraction = (match[2] ?? '').padEnd(9, '0');
  return BigInt(seconds) * NS_PER_MS + BigInt(fraction);
}

/** RFC 3339 in UTC with nanoseconds. */
export function timestampOfNs(ns: bigint): string {
  const ms = ns / NS_PER_MS;
  const iso = new Date(Number(ms)).toISOString();
  const nanos = (ns % 1_000_000_000n).toString().padStart(9, '0');
  return `${iso.slice(0, 19)}.${nanos}Z`;
}

/** A line with its cursor as id. */
export function logLineAt(cursor: LogCursor, source: LogSource, line: string): LogLine {
  return { id: formatLogCursor(cursor), ts: timestampOfNs(cursor.ns), source, line };
}

/**
 * Hands out cursors in stream order: lines with the same timestamp get increasing sequence numbers, so every id is
 * unique and a resumed stream skips exactly the lines its client has.
 */
export class CursorClock {
  private lastNs = -1n;
  private seq = 0;

  next(ns: bigint): LogCursor {
    this.seq = ns === this.lastNs ? this.seq + 1 : 0;
    this.lastNs = ns;
    return { ns, seq: this.seq };
  }
}

/** Splits text into complete lines; returns them and the bytes of the unfinished last line. */
export function completeLines(text: string): { lines: string[]; rest: string } {
  const parts = text.split('\n');
  const rest = parts.pop() ?? '';
  return { lines: parts.map((line) => line.replace(/\r$/, '')), rest };
}
