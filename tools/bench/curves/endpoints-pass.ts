// The scheduler's autoscaler pass over every endpoint (AutoscalerService.scaleAll, the part of each scheduler tick
// that visits each endpoint), run in this process against the world's real Postgres and Redis, wired as the
// scheduler's runtime wires it: its wall time and this process's CPU per pass.
import { createWorkerTokensService } from '@runplane/accounts';
import { ScalingRepository, WorkerStateStore } from '@runplane/endpoints';
import { JobScalingReader, LoadBalancerTraffic, WorkerRetirement } from '@runplane/jobs';
import { CapacityRepository } from '@runplane/placement';
import { createRedis, type Redis } from '@runplane/queue';
import { ColdStartsRepository } from '@runplane/workloads';
import { AutoscalerService } from '../../../apps/scheduler/src/autoscaler/autoscaler.service';
import { WorkerFleet } from '../../../apps/scheduler/src/autoscaler/worker-fleet';
import { WorkerRemoval } from '../../../apps/scheduler/src/autoscaler/worker-removal';
import { ColdStarts } from '../../../apps/scheduler/src/cold-start/cold-starts';
import { PlacementService } from '../../../apps/scheduler/src/placement/placement.service';
import { REDIS_URL, type World } from './endpoints-world';

/** Passes run before measuring (the first reads every worker's cold-start row and publishes every state). */
const WARM_UP = 2;
const PASSES = 7;

/** One size's pass: the median wall time and the mean CPU of this process, both in ms. */
export interface PassCost {
  wallMs: number;
  cpuMs: number;
}

export interface PassRunner {
  /**
   * A fresh autoscaler (nothing remembered from earlier sizes) measured over a few passes; `readAll`: every pass reads
   * every endpoint row, as a first pass does (the endpoints are not kept between passes).
   */
  measure(readAll?: boolean): Promise<PassCost>;
  close(): Promise<void>;
}

function autoscaler(world: World, prefixed: Redis, plain: Redis, readAll: boolean): AutoscalerService {
  const { db, prefix } = world;
  const placement = new PlacementService(new CapacityRepository(db), () => new Date());
  const fleet = new WorkerFleet(new ScalingRepository(db, readAll ? { fullEveryMs: 0 } : {}), placement);
  const removal = new WorkerRemoval(fleet, new WorkerRetirement(plain, prefix), createWorkerTokensService(db), () =>
    Promise.resolve(),
  );
  const signals = { jobs: new JobScalingReader(plain, prefix), traffic: new LoadBalancerTraffic(plain, prefix) };
  const reports = { states: new WorkerStateStore(prefixed), coldStarts: new ColdStarts(new ColdStartsRepository(db)) };
  return new AutoscalerService(fleet, signals, removal, reports);
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

export function passRunner(world: World): PassRunner {
  const prefixed = createRedis(REDIS_URL, { keyPrefix: world.prefix });
  const plain = createRedis(REDIS_URL);
  return {
    async measure(readAll = false) {
      const service = autoscaler(world, prefixed, plain, readAll);
      for (let pass = 0; pass < WARM_UP; pass += 1) await service.scaleAll();
      const walls: number[] = [];
      let cpu = 0;
      for (let pass = 0; pass < PASSES; pass += 1) {
        const cpuBefore = process.cpuUsage();
        const start = performance.now();
        await service.scaleAll();
        walls.push(performance.now() - start);
        const spent = process.cpuUsage(cpuBefore);
        cpu += (spent.user + spent.system) / 1000;
      }
      const cost = { wallMs: median(walls), cpuMs: cpu / PASSES };
      // Printed as measured: a long run that fails later keeps the sizes measured so far.
      const label = readAll ? 'pass reading every row' : 'pass';
      process.stderr.write(
        `[bench:endpoints]   ${label} ${cost.wallMs.toFixed(1)} ms, CPU ${cost.cpuMs.toFixed(1)} ms\n`,
      );
      return cost;
    },
    async close() {
      prefixed.disconnect();
      plain.disconnect();
    },
  };
}
