// Scale curves (BENCH_ONLY=curves): each curve printed as a table of n and cost, written to bench/results/curves-*.json
// and drawn as an SVG chart. BENCH_SCALE=small runs every size at 1/10.
import type { JobsBenchOptions } from '../jobs/router';
import { printCurve, scaleFactor, writeCurves } from './curve';
import { queuedJobsCurves } from './queued-jobs';

/** Runs the curves built so far (queued jobs) at the sizes scaled by `scale` (BENCH_SCALE). */
export async function benchCurves(options: JobsBenchOptions, scale: string | undefined): Promise<void> {
  const factor = scaleFactor(scale);
  const queued = await queuedJobsCurves(options, factor);
  queued.forEach(printCurve);
  await writeCurves('queued-jobs', queued);
}
