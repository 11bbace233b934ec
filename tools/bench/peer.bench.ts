// A peer measured side by side (BENCH_ONLY=peer): Temporal's development server against Runplane's job-router on the
// same machine in the same run, with the same client behaviour: submit throughput, end to end with 50 workers, and
// submit → worker handler latency. Results in bench/results/peer-temporal.json.
import { availableParallelism } from 'node:os';
import { createRedis, type Redis } from '@runplane/queue';
import { perOperation } from './cpu-meter';
import { type JobsBenchOptions, type Router, startRouter } from './jobs/router';
import { type Measured, runplaneEndToEnd, runplaneLatency, runplaneSubmit } from './peer-runplane';
import { printTable, type Row, writeResults } from './results';
import { ensurePeerBinaries, peerBinaries, TEMPORAL_CLI_VERSION } from './temporal/build';
import { type ClientResult, runClient } from './temporal/client';
import { startDevArgs, startTemporalServer, type TemporalServer } from './temporal/server';

/** Peer bench settings: the job benchmark's, with the end-to-end job count and the latency samples. */
export interface PeerBenchOptions extends JobsBenchOptions {
  e2eJobs: number;
  latencySamples: number;
}

const WORKERS = 50;
/** The Temporal units one Runplane job is compared with (see docs/benchmarks.md, "A peer: Temporal"). */
const UNITS = { activity: 'workflow + 1 activity', workflow: 'workflow alone' } as const;
type Unit = keyof typeof UNITS;

/** The two sides of the run: Runplane's job-router and Temporal's development server with the Go bench client. */
interface Sides {
  router: Router;
  redis: Redis;
  server: TemporalServer;
  client: string;
}

const temporal = (sides: Sides, args: string[]): Promise<ClientResult> =>
  runClient(sides.client, sides.server.address, [...args, '-server-pid', String(sides.server.pid)]);

const us = (ms: number, operations: number): number => (ms * 1000) / Math.max(1, operations);
/** Runplane's server-side CPU per job: the job-router and Redis. */
const runplaneServerUs = (side: Measured): number => us(side.cpu.router + side.cpu.redis, side.count);
const temporalCpu = (peer: ClientResult): string =>
  `CPU µs/op: client ${us(peer.cpuMs, peer.count).toFixed(0)}, server ${us(peer.serverCpuMs, peer.count).toFixed(0)}` +
  (peer.retried > 0 ? ` (${peer.retried} handler runs retried after a lost completion)` : '');

/** A throughput row and its server-CPU-per-job row. */
function throughputRows(metric: string, runplane: Measured, peer: ClientResult, unit: string): Row[] {
  const cpu = { runplane: perOperation(runplane.cpu, runplane.count), baseline: temporalCpu(peer) };
  const base = { target: '-', pass: true };
  return [
    { metric, runplane: runplane.perSecond, baseline: peer.perSecond, unit, ...base, cpu },
    {
      metric: `  server CPU per job (router+redis vs server)`,
      runplane: runplaneServerUs(runplane),
      baseline: us(peer.serverCpuMs, peer.count),
      unit: 'µs/op',
      ...base,
    },
  ];
}

async function submitRows(sides: Sides, options: PeerBenchOptions): Promise<Row[]> {
  const { connections, durationSeconds } = options;
  const runplane = await runplaneSubmit(sides.router, sides.redis, connections, durationSeconds);
  const args = ['-connections', String(connections), '-duration', `${durationSeconds}s`];
  const peer = await temporal(sides, ['-mode', 'submit', ...args]);
  return throughputRows(`submit, ${connections} connections`, runplane, peer, 'jobs/s');
}

async function endToEndRows(sides: Sides, options: PeerBenchOptions): Promise<Row[]> {
  const runplane = await runplaneEndToEnd(sides.router, sides.redis, options.e2eJobs, WORKERS);
  const rows: Row[] = [];
  for (const unit of Object.keys(UNITS) as Unit[]) {
    const jobs = ['-jobs', String(options.e2eJobs), '-workers', String(WORKERS), '-connections', String(WORKERS)];
    const peer = await temporal(sides, ['-mode', 'e2e', '-unit', unit, ...jobs]);
    const metric = `end to end, ${options.e2eJobs} jobs, ${WORKERS} workers (${UNITS[unit]})`;
    rows.push(...throughputRows(metric, runplane, peer, 'jobs/s'));
  }
  return rows;
}

async function latencyRows(sides: Sides, options: PeerBenchOptions): Promise<Row[]> {
  const runplane = await runplaneLatency(sides.router, sides.redis, options.latencySamples);
  const rows: Row[] = [];
  for (const unit of Object.keys(UNITS) as Unit[]) {
    const peer = await temporal(sides, ['-mode', 'latency', '-unit', unit, '-samples', String(options.latencySamples)]);
    for (const quantile of ['p50', 'p99'] as const) {
      const metric = `submit → worker handler ${quantile} (${UNITS[unit]})`;
      rows.push({
        metric,
        runplane: runplane[quantile],
        baseline: peer[quantile],
        unit: 'ms',
        target: '-',
        pass: true,
      });
    }
  }
  return rows;
}

function printRows(rows: Row[]): void {
  printTable(
    `Peer: Temporal ${TEMPORAL_CLI_VERSION} dev server (in-memory SQLite) as baseline; ratio = Runplane / Temporal; ${availableParallelism()} cores`,
    rows,
    62,
  );
  for (const row of rows) {
    if (row.cpu) console.log(`${row.metric.trim()}: temporal ${row.cpu.baseline}; runplane ${row.cpu.runplane}`);
  }
}

/** Builds the peer's binaries if missing, runs both sides, prints the ratios, writes bench/results/peer-temporal.json. */
export async function benchPeer(options: PeerBenchOptions): Promise<Row[]> {
  const built = await ensurePeerBinaries();
  if (built.length > 0) console.log(`built ${built.join(', ')}`);
  const binaries = peerBinaries();
  const router = await startRouter(options);
  const redis = createRedis(router.config.REDIS_URL);
  let server: TemporalServer | undefined;
  try {
    server = await startTemporalServer(binaries);
    const sides = { router, redis, server, client: binaries.client };
    const rows = [
      ...(await submitRows(sides, options)),
      ...(await endToEndRows(sides, options)),
      ...(await latencyRows(sides, options)),
    ];
    printRows(rows);
    const peer = { cli: TEMPORAL_CLI_VERSION, args: startDevArgs(0), store: 'in-memory SQLite (start-dev default)' };
    writeResults('peer-temporal', { options, peer, units: UNITS, rows });
    return rows;
  } finally {
    await server?.close();
    await router.close();
    redis.disconnect();
  }
}
