// Endpoints curve: 100, 1,000 and 10,000 endpoints of one account. The scheduler's autoscaler pass over every endpoint
// (wall time and CPU per pass) idle, with one worker each, with a few jobs queued on a tenth of them, and at a fixed
// 10,000 workers spread over fewer or more endpoints; GET /v1/endpoints and GET /v2/serverless p50 through a gateway.
import type { JobsBenchOptions } from '../jobs/router';
import type { Curve, Point } from './curve';
import { listRunner } from './endpoints-lists';
import { type PassCost, passRunner } from './endpoints-pass';
import { createWorld, type Shape, type World } from './endpoints-world';

/** Jobs queued on each endpoint of the queued tenth. */
const JOBS_PER_QUEUED_ENDPOINT = 3;
/** The fixed worker count of the workers-per-endpoint variant, and the workers per endpoint at its points. */
const FIXED_WORKERS = 10_000;
const WORKERS_PER_ENDPOINT = [10, 1];
const IDLE_TARGET_MS = 50;

interface Measured {
  idle: PassCost[];
  /** Idle, every pass reading every endpoint row (the endpoints not kept between passes): what keeping them saves. */
  idleReadAll: PassCost[];
  oneWorker: PassCost[];
  queued: PassCost[];
  fixedWorkers: PassCost[];
  v1: number[];
  v2: number[];
}

const log = (line: string): void => void process.stderr.write(`[bench:endpoints] ${line}\n`);

async function measureSizes(world: World, sizes: number[], measured: Measured, options: JobsBenchOptions) {
  const pass = passRunner(world);
  const lists = await listRunner(world, options.cpuProfileDir);
  try {
    for (const endpoints of sizes) {
      log(`${endpoints} endpoints, no worker`);
      await world.clearRedis();
      await world.seed({ endpoints, workersPerEndpoint: 0 });
      measured.idleReadAll.push(await pass.measure(true));
      measured.idle.push(await pass.measure());
      const listed = await lists.measure();
      measured.v1.push(listed.v1Ms);
      measured.v2.push(listed.v2Ms);
      log(`${endpoints} endpoints, 1 worker each`);
      await world.clearRedis();
      const ids = await world.seed({ endpoints, workersPerEndpoint: 1 });
      measured.oneWorker.push(await pass.measure());
      log(`${endpoints} endpoints, 1 worker each, ${JOBS_PER_QUEUED_ENDPOINT} jobs queued on a tenth`);
      await world.queue(ids.slice(0, Math.max(1, Math.round(ids.length / 10))), JOBS_PER_QUEUED_ENDPOINT);
      measured.queued.push(await pass.measure());
    }
  } finally {
    await lists.close();
    await pass.close();
  }
}

async function measureFixedWorkers(world: World, shapes: Shape[], measured: Measured): Promise<void> {
  const pass = passRunner(world);
  try {
    for (const shape of shapes) {
      log(`${shape.endpoints} endpoints, ${shape.workersPerEndpoint} workers each`);
      await world.clearRedis();
      await world.seed(shape);
      measured.fixedWorkers.push(await pass.measure());
    }
  } finally {
    await pass.close();
  }
}

/** BENCH_ENDPOINTS_IDLE_PASS_AT=n: only the idle pass at n endpoints, every row read each pass and kept, twice each. */
async function idlePassOnly(world: World, endpoints: number): Promise<Curve[]> {
  const pass = passRunner(world);
  const readAll: number[] = [];
  const kept: number[] = [];
  try {
    await world.clearRedis();
    await world.seed({ endpoints, workersPerEndpoint: 0 });
    for (let round = 0; round < 2; round += 1) {
      readAll.push((await pass.measure(true)).wallMs);
      kept.push((await pass.measure()).wallMs);
    }
  } finally {
    await pass.close();
  }
  const point = (values: number[]): Point[] => [{ n: endpoints, cost: median(values) }];
  return [
    { name: 'autoscaler pass, idle', nLabel: 'endpoints', unit: 'ms', points: point(kept) },
    {
      name: 'autoscaler pass, idle, every row read each pass',
      nLabel: 'endpoints',
      unit: 'ms',
      points: point(readAll),
    },
  ];
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/**
 * The pass at a fixed number of workers over ten times as many endpoints, whose target is that the pass does not grow
 * with endpoints × workers. From the first shape to the last, endpoints × workers grows tenfold and endpoints + workers
 * about twofold: a pass linear in endpoints and workers costs about as much per endpoint and worker at both (more
 * where the endpoints cost more than the workers, as an endpoint with a worker does), and one that compares every
 * endpoint with every worker about five times as much. Met when the last costs at most twice the first per endpoint
 * and worker.
 */
function fixedWorkersCurve(shapes: Shape[], wallMs: number[]): Curve {
  const perUnit = (i: number): number => {
    const shape = shapes[i];
    return shape ? (wallMs[i] ?? Infinity) / (shape.endpoints * (1 + shape.workersPerEndpoint)) : Infinity;
  };
  const workers = (shapes[0]?.endpoints ?? 0) * (shapes[0]?.workersPerEndpoint ?? 0);
  return {
    name: `autoscaler pass, ${workers} workers over n endpoints`,
    nLabel: 'endpoints',
    unit: 'ms',
    points: wallMs.map((cost, i) => ({ n: shapes[i]?.endpoints ?? 0, cost })),
    target: 'not endpoints x workers (ms per endpoint + worker at the last <= 2x the first)',
    pass: perUnit(shapes.length - 1) <= 2 * perUnit(0),
  };
}

function toCurves(sizes: number[], shapes: Shape[], measured: Measured): Curve[] {
  const points = (values: number[]): Point[] => values.map((cost, i) => ({ n: sizes[i] ?? 0, cost }));
  const byEndpoints = (name: string, unit: string, values: number[], verdict: Partial<Curve> = {}): Curve => ({
    name,
    nLabel: 'endpoints',
    unit,
    points: points(values),
    ...verdict,
  });
  const wall = (costs: PassCost[]): number[] => costs.map((cost) => cost.wallMs);
  const cpu = (costs: PassCost[]): number[] => costs.map((cost) => cost.cpuMs);
  const idleLast = measured.idle.at(-1)?.wallMs ?? Infinity;
  const target = `<= ${IDLE_TARGET_MS} ms at ${sizes.at(-1)} endpoints`;
  return [
    byEndpoints('autoscaler pass, idle', 'ms', wall(measured.idle), { target, pass: idleLast <= IDLE_TARGET_MS }),
    byEndpoints('autoscaler pass CPU, idle', 'CPU ms', cpu(measured.idle)),
    byEndpoints('autoscaler pass, idle, every row read each pass', 'ms', wall(measured.idleReadAll)),
    byEndpoints('autoscaler pass CPU, idle, every row read each pass', 'CPU ms', cpu(measured.idleReadAll)),
    byEndpoints('autoscaler pass, 1 worker per endpoint', 'ms', wall(measured.oneWorker)),
    byEndpoints('autoscaler pass CPU, 1 worker per endpoint', 'CPU ms', cpu(measured.oneWorker)),
    byEndpoints('autoscaler pass, jobs queued on 10% of endpoints', 'ms', wall(measured.queued)),
    byEndpoints('autoscaler pass CPU, jobs queued on 10% of endpoints', 'CPU ms', cpu(measured.queued)),
    fixedWorkersCurve(shapes, wall(measured.fixedWorkers)),
    byEndpoints('GET /v1/endpoints p50', 'ms', measured.v1),
    byEndpoints('GET /v2/serverless p50 (first page)', 'ms', measured.v2),
  ];
}

/** The endpoints curves at sizes scaled by `factor` (1 = 100, 1,000 and 10,000 endpoints). */
export async function endpointsCurves(options: JobsBenchOptions, factor: number): Promise<Curve[]> {
  const scaled = (n: number): number => Math.max(1, Math.round(n * factor));
  const sizes = [100, 1000, 10_000].map(scaled);
  const workers = scaled(FIXED_WORKERS);
  const shapes = WORKERS_PER_ENDPOINT.map((each) => ({
    endpoints: Math.max(1, workers / each),
    workersPerEndpoint: each,
  }));
  const measured: Measured = { idle: [], idleReadAll: [], oneWorker: [], queued: [], fixedWorkers: [], v1: [], v2: [] };
  const world = await createWorld(options.adminDatabaseUrl);
  try {
    const only = Number(process.env.BENCH_ENDPOINTS_IDLE_PASS_AT ?? 0);
    if (only > 0) return await idlePassOnly(world, only);
    await measureSizes(world, sizes, measured, options);
    await measureFixedWorkers(world, shapes, measured);
  } finally {
    await world.close();
  }
  return toCurves(sizes, shapes, measured);
}
