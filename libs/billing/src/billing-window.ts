import type { BucketSize } from '@runplane/contracts';

/** A resolved billing window [start, end), aligned on bucket boundaries. */
export interface BillingWindow {
  start: Date;
  end: Date;
}

/** The start of the bucket `date` falls in, in UTC (weeks start on Monday, as Postgres' date_trunc has them). */
export function bucketStart(date: Date, size: BucketSize): Date {
  const d = new Date(date.getTime());
  switch (size) {
    case 'hour':
      d.setUTCMinutes(0, 0, 0);
      return d;
    case 'day':
      d.setUTCHours(0, 0, 0, 0);
      return d;
    case 'week': {
      d.setUTCHours(0, 0, 0, 0);
      d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
      return d;
    }
    case 'month':
      return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
    case 'year':
      return new Date(Date.UTC(d.getUTCFullYear(), 0, 1));
  }
}

/** The bucket start `count` buckets after (or, negative, before) the bucket start `start`. */
export function addBuckets(start: Date, size: BucketSize, count: number): Date {
  const d = new Date(start.getTime());
  if (size === 'hour') d.setUTCHours(d.getUTCHours() + count);
  else if (size === 'day') d.setUTCDate(d.getUTCDate() + count);
  else if (size === 'week') d.setUTCDate(d.getUTCDate() + 7 * count);
  else if (size === 'month') d.setUTCMonth(d.getUTCMonth() + count);
  else d.setUTCFullYear(d.getUTCFullYear() + count);
  return d;
}

/** What a v2 billing query says about its window; startTime/endTime and lastN exclude each other (checked before). */
export interface WindowQuery {
  bucketSize: BucketSize;
  startTime?: string;
  endTime?: string;
  lastN?: number;
}

const DEFAULT_DAYS = 30;

/**
 * RunPod's v2 billing window: `lastN` buckets ending with the current one, else startTime (default 30 days ago)
 * snapped down to its bucket's start and endTime (default now) snapped up to the next boundary unless on one.
 */
export function resolveWindow(query: WindowQuery, now: Date): BillingWindow {
  const size = query.bucketSize;
  if (query.lastN !== undefined) {
    const current = bucketStart(now, size);
    return { start: addBuckets(current, size, 1 - query.lastN), end: addBuckets(current, size, 1) };
  }
  const end = query.endTime === undefined ? now : new Date(query.endTime);
  const start =
    query.startTime === undefined ? new Date(end.getTime() - DEFAULT_DAYS * 86_400_000) : new Date(query.startTime);
  const endStart = bucketStart(end, size);
  return {
    start: bucketStart(start, size),
    end: endStart.getTime() === end.getTime() ? end : addBuckets(endStart, size, 1),
  };
}
