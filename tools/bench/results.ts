// What every suite reports: rows of a figure against the baseline measured in the same run, printed as a table and
// written to bench/results/<suite>.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** One figure with its baseline and target. */
export interface Row {
  metric: string;
  runplane: number;
  baseline?: number;
  unit: string;
  /** `ratio>=x` compares runplane/baseline, `<=x` compares the figure itself. */
  target: string;
  pass: boolean;
  /** CPU per operation of each party, baseline and Runplane (diagnostics, printed under the table). */
  cpu?: { baseline: string; runplane: string; ceiling?: number };
}

/** The value at quantile `p` of ascending `sorted` (0 when empty). */
export const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/** Milliseconds since `start` (a `process.hrtime.bigint()`). */
export const ms = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;

/** Median and 99th percentile of one party's samples. */
export interface Percentiles {
  p50: number;
  p99: number;
}

/** The p50 and p99 rows of a latency comparison; with `maxP50`, the p50 row passes only at or under it. */
export function percentileRows(metric: string, runplane: Percentiles, baseline: Percentiles, maxP50?: number): Row[] {
  return [
    {
      metric: `${metric} p50`,
      runplane: runplane.p50,
      baseline: baseline.p50,
      unit: 'ms',
      target: maxP50 === undefined ? '-' : `<=${maxP50}`,
      pass: maxP50 === undefined || runplane.p50 <= maxP50,
    },
    { metric: `${metric} p99`, runplane: runplane.p99, baseline: baseline.p99, unit: 'ms', target: '-', pass: true },
  ];
}

/** Percentiles of ascending `sorted` samples. */
export function percentilesOf(sorted: number[]): Percentiles {
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
}

/** Prints `rows` under `title` as a table, the metric column `metricWidth` wide. */
export function printTable(title: string, rows: Row[], metricWidth: number): void {
  console.log(`\n${title}`);
  console.log(
    'metric'.padEnd(metricWidth),
    'runplane'.padStart(10),
    'baseline'.padStart(10),
    'ratio'.padStart(7),
    'unit'.padStart(7),
    'target'.padStart(11),
    ' ok',
  );
  for (const row of rows) {
    const ratio = row.baseline ? (row.runplane / row.baseline).toFixed(2) : '-';
    const baseline = row.baseline === undefined ? '-' : row.baseline.toFixed(2);
    console.log(
      row.metric.padEnd(metricWidth),
      row.runplane.toFixed(2).padStart(10),
      baseline.padStart(10),
      ratio.padStart(7),
      row.unit.padStart(7),
      row.target.padStart(11),
      row.pass ? ' yes' : ' NO',
    );
  }
}

/** Writes a suite's figures to bench/results/<suite>.json with the time they were measured. */
export function writeResults(suite: string, figures: Record<string, unknown>): void {
  const file = path.join(__dirname, `../../bench/results/${suite}.json`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ measuredAt: new Date().toISOString(), ...figures }, null, 2)}\n`);
  console.log(`written: ${path.relative(process.cwd(), file)}`);
}
