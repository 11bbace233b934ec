// Runplane benchmarks: each suite measures its own baseline in the same run and prints ratios against it.
import { benchApiKeys, printRatios } from './api-keys.bench';
import { benchCurves } from './curves';
import { benchGateway } from './gateway.bench';
import { benchJobs } from './jobs.bench';
import { benchPeer } from './peer.bench';
import { routerLaunchFrom } from './router-process';
import { benchScheduler } from './scheduler.bench';

const env = process.env;
/** A number the environment sets, or undefined for the suite's own default. */
const optionalNumber = (value: string | undefined): number | undefined =>
  value === undefined ? undefined : Number(value);
const options = {
  adminDatabaseUrl: env.BENCH_DATABASE_URL ?? env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
  durationSeconds: Number(env.BENCH_DURATION_SECONDS ?? 5),
  connections: Number(env.BENCH_CONNECTIONS ?? 20),
  router: routerLaunchFrom(env),
};

async function main(): Promise<void> {
  const only = env.BENCH_ONLY ? env.BENCH_ONLY.split(',').map((suite) => suite.trim()) : undefined;
  if (!only || only.includes('apikeys')) {
    printRatios('v1 API authentication (ratio = req/s against /healthz)', await benchApiKeys(options));
  }
  if (!only || only.includes('gateway')) await benchGateway({ ...options, cpuProfileDir: env.BENCH_CPU_PROFILE_DIR });
  const jobSuites = ['accept', 'e2e', 'dispatch', 'runsync'];
  if (!only || only.some((suite) => jobSuites.includes(suite))) {
    await benchJobs({
      ...options,
      e2eJobs: optionalNumber(env.BENCH_E2E_JOBS),
      e2eWarmUpJobs: optionalNumber(env.BENCH_E2E_WARM_UP_JOBS),
      cpuProfileDir: env.BENCH_CPU_PROFILE_DIR,
      only,
    });
  }
  if (!only || only.includes('scheduler')) {
    await benchScheduler({
      pods: Number(env.BENCH_SCHEDULER_PODS ?? 1000),
      nodes: Number(env.BENCH_SCHEDULER_NODES ?? 200),
      reactions: Number(env.BENCH_SCHEDULER_REACTIONS ?? 10),
    });
  }
  if (!only || only.includes('peer'))
    await benchPeer({
      ...options,
      e2eJobs: Number(env.BENCH_PEER_JOBS ?? 2000),
      latencySamples: Number(env.BENCH_PEER_SAMPLES ?? 300),
    });
  if (!only || only.includes('curves')) await benchCurves(options, env.BENCH_SCALE, env.BENCH_CURVES);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
