// Scheduler on Kubernetes: Runplane's end-to-end placement of worker pods on kwok GPU nodes against kube-scheduler's
// own bind rate for the same pods created directly, and the autoscaler's reaction time (queue over the threshold ->
// worker pod created). One control plane (kube-apiserver, kube-scheduler, kwok) for the whole suite; its parts are
// in tools/bench/scheduler/.
import { printTable, type Row, writeResults } from './results';
import { withCpu, withRequests } from './scheduler/cpu';
import { autoscalerReaction, baselineBindRate, runplanePlacement } from './scheduler/placement';
import { log, type SchedulerBench, startSchedulerBench } from './scheduler/setup';

/** Bench settings, read from the environment by the runner. */
export interface SchedulerBenchOptions {
  /** Worker pods placed in each run (BENCH_SCHEDULER_PODS, default 1000). */
  pods: number;
  /** kwok GPU nodes (BENCH_SCHEDULER_NODES, default 200), 8 GPUs each. */
  nodes: number;
  /** Autoscaler reaction samples (BENCH_SCHEDULER_REACTIONS, default 10). */
  reactions: number;
}

/** Each phase's figures, with the CPU and kube-apiserver requests it cost. */
async function measure({ context, apiserver }: SchedulerBench, options: SchedulerBenchOptions) {
  const { plane, kube } = context;
  log(`kube-scheduler alone: ${options.pods} pods`);
  const direct = await withRequests(apiserver, options.pods, () =>
    withCpu(plane, options.pods, () => baselineBindRate(plane, kube, options.pods)),
  );
  log(`Runplane end to end: ${options.pods} worker pods`);
  const runplane = await withRequests(apiserver, options.pods, () =>
    withCpu(plane, options.pods, () => runplanePlacement(context, options.pods)),
  );
  // runplanePlacement leaves the endpoint at workersMin 0, workersMax 1: one job queued brings up one worker.
  log(`autoscaler reaction: ${options.reactions} samples`);
  const reactions = await autoscalerReaction(context, options.reactions);
  return { direct, runplane, reactions };
}

type Figures = Awaited<ReturnType<typeof measure>>;

function rowsOf({ direct, runplane, reactions }: Figures, options: SchedulerBenchOptions): Row[] {
  const baseline = direct.result.result.rate;
  const placed = runplane.result.result;
  const p50 = reactions[Math.floor(reactions.length / 2)] ?? 0;
  return [
    {
      metric: `worker pods placed and bound (${options.pods} on ${options.nodes} nodes)`,
      runplane: placed.bound,
      baseline,
      unit: 'pods/s',
      target: 'ratio>=0.8',
      pass: placed.bound / baseline >= 0.8,
    },
    {
      metric: '  of which: worker rows placed by the autoscaler',
      runplane: placed.placed,
      unit: 'rows/s',
      target: '-',
      pass: true,
    },
    {
      metric: 'autoscaler reaction p50 (job queued -> worker pod)',
      runplane: p50,
      unit: 'ms',
      target: '<=1000',
      pass: p50 <= 1000,
    },
    { metric: 'autoscaler reaction max', runplane: reactions.at(-1) ?? 0, unit: 'ms', target: '-', pass: true },
  ];
}

/** Prints what each party spent per pod and what kube-apiserver served; returns the CPU figures for the file. */
function printCosts({ direct, runplane }: Figures) {
  const cpu = { direct: direct.result.cpuMsPerPod, runplane: runplane.result.cpuMsPerPod };
  // Inside the timed window only (creation to the last bind): what the two rates are made of on a shared machine.
  const timed = { direct: direct.result.result.cpuMsPerPod, runplane: runplane.result.result.cpuMsPerPod };
  console.log(`CPU ms per pod, kube-scheduler alone: ${JSON.stringify(cpu.direct)}`);
  console.log(`CPU ms per pod, Runplane end to end (incl. removing them): ${JSON.stringify(cpu.runplane)}`);
  console.log(`CPU ms per pod while timed, kube-scheduler alone: ${JSON.stringify(timed.direct)}`);
  console.log(`CPU ms per pod while timed, Runplane end to end: ${JSON.stringify(timed.runplane)}`);
  console.log(`kube-apiserver requests per pod, kube-scheduler alone: ${direct.perPod}`);
  console.log(`kube-apiserver requests per pod, Runplane end to end (incl. removing them): ${runplane.perPod}`);
  return { cpuMsPerPod: cpu, timedCpuMsPerPod: timed };
}

/** Runs the scheduler benchmarks, prints a table and writes bench/results/scheduler.json. */
export async function benchScheduler(options: SchedulerBenchOptions): Promise<Row[]> {
  const bench = await startSchedulerBench(options);
  try {
    const figures = await measure(bench, options);
    const rows = rowsOf(figures, options);
    printTable('Scheduler on Kubernetes (baseline: kube-scheduler binding the same pods created directly)', rows, 48);
    writeResults('scheduler', { options, rows, ...printCosts(figures) });
    return rows;
  } finally {
    await bench.close();
  }
}
