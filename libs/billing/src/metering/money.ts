import { Prisma } from '@runplane/db';

/**
 * Exact decimal arithmetic for money (decimal.js, as Prisma ships it): 40 significant digits, half-up
 * rounding. Rates, prices and amounts never pass through a float until a read presents a sum.
 */
export const Money = Prisma.Decimal.clone({ precision: 40, rounding: Prisma.Decimal.ROUND_HALF_UP });
/** A decimal amount or rate. */
export type Money = InstanceType<typeof Money>;

/** Decimal places a billing record's amount keeps (reads sum records exactly, then round to 6). */
export const RECORD_DECIMALS = 10;
/** Decimal places of rates stored on usage intervals (USD per hour, USD per month). */
export const RATE_DECIMALS = 6;

/** Milliseconds in an hour: billing records are hourly buckets. */
export const MS_PER_HOUR = 3_600_000;

/** Hours in a billing month (365 x 24 / 12): a GB-month price bills price / 730 per GB-hour. */
export const HOURS_PER_MONTH = 730;

/** The UTC hour an instant falls in. */
export function hourOf(ms: number): number {
  return Math.floor(ms / MS_PER_HOUR) * MS_PER_HOUR;
}

/** A decimal-like value (Prisma Decimal, string, number) as Money. */
export function money(value: { toString(): string } | string | number): Money {
  return new Money(typeof value === 'object' ? value.toString() : value);
}
