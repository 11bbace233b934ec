// Scale curves (BENCH_ONLY=curves): each curve printed as a table of n and cost, written to bench/results/curves-*.json
// and drawn as an SVG chart. BENCH_SCALE=small runs every size at 1/10; BENCH_CURVES picks some of them.
import type { JobsBenchOptions } from '../jobs/router';
import { type Curve, printCurve, scaleFactor, writeCurves } from './curve';
import { endpointsCurves } from './endpoints';
import { kubernetesCurves } from './kubernetes';
import { podsCurves } from './pods';
import { queuedJobsCurves } from './queued-jobs';
import { workersCurves } from './workers';

const SUITES: Record<string, (options: JobsBenchOptions, factor: number) => Promise<Curve[]>> = {
  endpoints: endpointsCurves,
  kubernetes: kubernetesCurves,
  pods: podsCurves,
  'queued-jobs': queuedJobsCurves,
  workers: workersCurves,
};

/** Runs the curves built so far at the sizes scaled by `scale` (BENCH_SCALE); only `picked` (BENCH_CURVES) if set. */
export async function benchCurves(options: JobsBenchOptions, scale?: string, picked?: string): Promise<void> {
  const factor = scaleFactor(scale);
  const names = picked ? picked.split(',').map((name) => name.trim()) : Object.keys(SUITES);
  for (const name of names) {
    const suite = SUITES[name];
    if (!suite) throw new Error(`BENCH_CURVES: unknown curve suite ${name} (${Object.keys(SUITES).join(', ')})`);
    const curves = await suite(options, factor);
    curves.forEach(printCurve);
    await writeCurves(name, curves);
  }
}
