/** Timestamps are Date objects after a typed list/read but ISO strings in raw watch events; accept both. */
export function toDate(value: Date | string | undefined | null): Date | null {
  if (value === undefined || value === null) return null;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}
