// Job API benchmarks: Runplane's job-router against raw BullMQ (through @runplane/queue) on the same Redis, same run.
// Each suite is a file of tools/bench/jobs/: accept throughput, end to end, dispatch and /runsync latency.
import { availableParallelism } from 'node:os';
import { createRedis } from '@runplane/queue';
import { cleanupRedisPrefix } from '@runplane/testing';
import { type Baselines, benchAccept } from './jobs/accept';
import { benchEndToEnd, END_TO_END_JOBS } from './jobs/end-to-end';
import { benchDispatch, benchRunsync } from './jobs/latency';
import { startMinimalServer } from './jobs/minimal';
import { type JobsBenchOptions, startRouter } from './jobs/router';
import { printTable, type Row, writeResults } from './results';

export type { JobsBenchOptions } from './jobs/router';

function printRows(rows: Row[]): void {
  printTable(
    'Job API (baseline: minimal pipeline = bare Fastify + raw BullMQ add, or raw BullMQ via @runplane/queue as the floor; for dispatch add → idle worker called; for /runsync: GET /healthz round trip)',
    rows,
    44,
  );
  for (const row of rows) {
    if (!row.cpu) continue;
    console.log(`${row.metric}: baseline ${row.cpu.baseline}; runplane ${row.cpu.runplane}`);
    if (row.cpu.ceiling !== undefined && row.baseline) {
      const { ceiling } = row.cpu;
      console.log(
        `  CPU ceiling at this CPU per operation on ${availableParallelism()} cores: ${ceiling.toFixed(0)} ${row.unit} (ratio ${(ceiling / row.baseline).toFixed(2)})`,
      );
    }
  }
}

/** Runs every job benchmark, prints a table and writes the figures to bench/results/jobs.json. */
export async function benchJobs(options: JobsBenchOptions): Promise<Row[]> {
  const router = await startRouter(options);
  const redis = createRedis(router.config.REDIS_URL);
  const rawPrefix = `runplane-bench-raw-${process.pid}:`;
  // Each suite gets a minimal server on a prefix of its own: the jobs /run accept leaves queued must not reach the
  // end-to-end suite's workers.
  const withMinimal = async (suite: string, run: (baselines: Baselines) => Promise<Row[]>): Promise<Row[]> => {
    const minimal = await startMinimalServer(router.config.REDIS_URL, `${rawPrefix}minimal-${suite}:`);
    try {
      return await run({ rawPrefix, minimal });
    } finally {
      await minimal.close();
    }
  };
  try {
    const wanted = (suite: string) => !options.only || options.only.includes(suite);
    const e2eJobs = {
      total: options.e2eJobs ?? END_TO_END_JOBS.total,
      warmUp: options.e2eWarmUpJobs ?? END_TO_END_JOBS.warmUp,
    };
    const rows = [
      ...(wanted('accept')
        ? await withMinimal('accept', (baselines) => benchAccept(router, redis, options, baselines))
        : []),
      ...(wanted('e2e')
        ? await withMinimal('e2e', (baselines) => benchEndToEnd(router, redis, e2eJobs, baselines))
        : []),
      ...(wanted('dispatch') ? await benchDispatch(router, redis, rawPrefix, 300) : []),
      ...(wanted('runsync') ? await benchRunsync(router, 300) : []),
    ];
    printRows(rows);
    writeResults('jobs', { options, rows });
    return rows;
  } finally {
    await router.close();
    await cleanupRedisPrefix(redis, rawPrefix);
    redis.disconnect();
  }
}
