// A scale curve: the cost of one operation at each size n, printed as a table, written to bench/results/curves-*.json
// and drawn as an SVG chart (vega-lite compiled to vega, rendered headlessly).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** One measured point: the size and the cost at that size. */
export interface Point {
  n: number;
  cost: number;
}

/** A curve with its unit and, where the issue sets one, its target in words and whether it is met. */
export interface Curve {
  name: string;
  /** What n counts (endpoints, queued jobs, parked takes). */
  nLabel: string;
  unit: string;
  points: Point[];
  target?: string;
  pass?: boolean;
}

/** Sizes scaled by BENCH_SCALE: `small` divides each by 10, a number multiplies; default 1. */
export function scaleFactor(scale: string | undefined): number {
  if (!scale || scale === 'full') return 1;
  if (scale === 'small') return 0.1;
  const factor = Number(scale);
  if (!Number.isFinite(factor) || factor <= 0) throw new Error(`BENCH_SCALE must be small, full or a number > 0`);
  return factor;
}

/** Prints `curve` as a table of n and cost. */
export function printCurve(curve: Curve): void {
  const verdict = curve.target ? ` (target ${curve.target}: ${curve.pass ? 'met' : 'NOT met'})` : '';
  console.log(`\n${curve.name}${verdict}`);
  console.log(`${curve.nLabel.padStart(14)} | ${curve.unit}`);
  for (const point of curve.points) console.log(`${String(point.n).padStart(14)} | ${point.cost.toFixed(3)}`);
}

const slug = (name: string): string =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/**
 * A native `import()` of an ES module: vega and vega-lite are ESM with top-level await, which the CommonJS the bench
 * is compiled to (`import()` becomes `require`) cannot load.
 */
const importEsm = new Function('specifier', 'return import(specifier)') as <T>(specifier: string) => Promise<T>;

/** The curve as an SVG line chart (log-scaled n). */
export async function chartSvg(curve: Curve): Promise<string> {
  const vegaLite = await importEsm<typeof import('vega-lite')>('vega-lite');
  const vega = await importEsm<typeof import('vega')>('vega');
  const spec = vegaLite.compile({
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: curve.name,
    width: 480,
    height: 280,
    data: { values: curve.points },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'n', type: 'quantitative', scale: { type: 'log' }, title: curve.nLabel },
      y: { field: 'cost', type: 'quantitative', title: curve.unit },
    },
  }).spec;
  const view = new vega.View(vega.parse(spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

/** Writes every curve of `suite` to bench/results/curves-<suite>.json and one SVG chart per curve. */
export async function writeCurves(suite: string, curves: Curve[]): Promise<void> {
  const dir = path.join(__dirname, '../../../bench/results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `curves-${suite}.json`);
  writeFileSync(file, `${JSON.stringify({ measuredAt: new Date().toISOString(), curves }, null, 2)}\n`);
  console.log(`written: ${path.relative(process.cwd(), file)}`);
  for (const curve of curves) {
    const svg = path.join(dir, `curves-${suite}-${slug(curve.name)}.svg`);
    writeFileSync(svg, await chartSvg(curve));
    console.log(`written: ${path.relative(process.cwd(), svg)}`);
  }
}
