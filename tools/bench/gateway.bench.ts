// The gateway's read path: authenticated reads on the gateway process against bare Fastify + pg doing the same
// authenticated read (key lookup by hash + the row), and a refused key against GET /healthz, in the same run.
import { availableParallelism } from 'node:os';
import autocannon from 'autocannon';
import { createAccountsServices } from '@runplane/accounts';
import { createPrismaClient, type DbClient, newId } from '@runplane/db';
import { createRedis, type Redis } from '@runplane/queue';
import { cleanupRedisPrefix } from '@runplane/testing';
import { createBenchDatabase } from './bench-database';
import { type CpuSpent, measureCpu, perOperation, sumCpu } from './cpu-meter';
import { interleave } from './interleave';
import { measurePostgresCpu } from './gateway/postgres-cpu';
import { type ServerProcess, startServer } from './bench-process';
import { gatewayBenchEnv } from './gateway/processes';
import { printTable, type Row, writeResults } from './results';

/** Bench settings, read from the environment by the runner. */
export interface GatewayBenchOptions {
  adminDatabaseUrl: string;
  durationSeconds: number;
  connections: number;
  /** Where the gateway process writes a V8 CPU profile when it exits (BENCH_CPU_PROFILE_DIR). */
  cpuProfileDir?: string;
}

interface Seeded {
  secret: string;
  podId: string;
}

/** One account with an ALL key, a Pod and ten endpoints. */
async function seed(db: DbClient): Promise<Seeded> {
  const { accounts, apiKeys } = createAccountsServices(db);
  const account = await accounts.create({ name: 'bench' });
  const { secret } = await apiKeys.create(account.id, { name: 'bench', scope: 'ALL' });
  const accountId = account.id;
  const template = await db.template.create({
    data: { id: newId(), accountId, name: 'bench', imageName: 'runplane/echo:1', isServerless: true },
  });
  for (let i = 0; i < 10; i += 1) {
    await db.endpoint.create({ data: { id: newId(), accountId, name: `ep-${i}`, templateId: template.id } });
  }
  const pod = await db.pod.create({ data: { id: newId(), accountId, image: 'runplane/echo:1', costPerHr: '0.72' } });
  return { secret, podId: pod.id };
}

interface Measured {
  perSecond: number;
  non2xx: number;
  cpu: string;
  ceiling: number;
}

/** Where a phase's load goes and how its CPU is read: the server under load and the database it reads. */
interface Target {
  redis: Redis;
  db: DbClient;
  database: string;
  server: ServerProcess;
}

/** One side of a comparison: a path on a target, and the key its requests present (none when absent). */
interface Side {
  target: Target;
  path: string;
  secret?: string;
}

/** One slice of load on one side: its requests and seconds, its non-2xx answers, and the CPU it cost. */
interface Slice {
  requests: number;
  seconds: number;
  non2xx: number;
  cpu: CpuSpent;
  postgresMs: number;
}

/** Slices per side, alternated with the other side's (interleave.ts); together they last BENCH_DURATION_SECONDS. */
const SLICES = 4;
/** Unmeasured load on each side before its slices, so neither is measured while its code is still being compiled. */
const WARM_UP_SECONDS = 1;

/**
 * The most requests per second the machine's cores give at the measured CPU per request of the load generator, the
 * server and Postgres together, or of the server alone on its one event loop, whichever is lower. Redis is left out:
 * these reads do not touch it, and its counters include every other user of the shared instance.
 */
function ceilingOf(perRequestUs: { bench: number; server: number; postgres: number }): number {
  const total = perRequestUs.bench + perRequestUs.server + perRequestUs.postgres;
  const shared = total > 0 ? (availableParallelism() * 1e6) / total : Infinity;
  return Math.min(shared, perRequestUs.server > 0 ? 1e6 / perRequestUs.server : Infinity);
}

/** `seconds` of load on one side, with the CPU it cost the server, the benchmark process and Postgres. */
async function loadSlice({ target, path, secret }: Side, seconds: number, connections: number): Promise<Slice> {
  const { result, postgresMs } = await measurePostgresCpu(target.db, target.database, () =>
    measureCpu(target.redis, target.server.pid, () =>
      autocannon({
        url: `${target.server.base}${path}`,
        duration: seconds,
        connections,
        headers: secret ? { authorization: `Bearer ${secret}` } : {},
      }),
    ),
  );
  const { result: run, cpu } = result;
  return { requests: run.requests.total, seconds: run.duration, non2xx: run.non2xx, cpu, postgresMs };
}

/** One side's slices summed: requests per second over their summed time, and CPU per request. */
function summed(slices: Slice[]): Measured {
  const total = Math.max(
    1,
    slices.reduce((sum, slice) => sum + slice.requests, 0),
  );
  const seconds = slices.reduce((sum, slice) => sum + slice.seconds, 0);
  const cpu = sumCpu(slices.map((slice) => slice.cpu));
  const postgresMs = slices.reduce((sum, slice) => sum + slice.postgresMs, 0);
  const us = (ms: number): number => (ms * 1000) / total;
  return {
    perSecond: seconds > 0 ? total / seconds : 0,
    non2xx: slices.reduce((sum, slice) => sum + slice.non2xx, 0),
    // perOperation's "router" is the server process under load: the gateway, or the bare baseline.
    cpu: `${perOperation(cpu, total)}, postgres ${us(postgresMs).toFixed(0)}`,
    ceiling: ceilingOf({ bench: us(cpu.bench), server: us(cpu.router), postgres: us(postgresMs) }),
  };
}

/**
 * Both sides after a warm-up each, in SLICES alternating slices each (A B B A …), so that both meet the same moments
 * of a machine whose speed drifts; each side is loaded for `durationSeconds` in all.
 */
async function compare(
  baseline: Side,
  runplane: Side,
  options: GatewayBenchOptions,
): Promise<{ baseline: Measured; runplane: Measured }> {
  await loadSlice(baseline, WARM_UP_SECONDS, options.connections);
  await loadSlice(runplane, WARM_UP_SECONDS, options.connections);
  const seconds = options.durationSeconds / SLICES;
  const slices = await interleave(
    SLICES,
    () => loadSlice(baseline, seconds, options.connections),
    () => loadSlice(runplane, seconds, options.connections),
  );
  return { baseline: summed(slices.baseline), runplane: summed(slices.runplane) };
}

/**
 * A throughput row of `runplane` against `baseline` with target `ratio>=min`. Each side's CPU figures end with its
 * CPU ceiling; the ratio of the two ceilings is the ratio a machine with nothing else running would show, where the
 * measured one swings with the neighbours' load.
 */
function ratioRow(
  metric: string,
  { runplane, baseline }: { runplane: Measured; baseline: Measured },
  min: number,
): Row {
  const pass = runplane.perSecond / baseline.perSecond >= min;
  const ceilingRatio = (runplane.ceiling / baseline.ceiling).toFixed(2);
  const cpu = {
    baseline: `${baseline.cpu}; CPU ceiling ${baseline.ceiling.toFixed(0)} req/s`,
    runplane: `${runplane.cpu}; CPU ceiling ${runplane.ceiling.toFixed(0)} req/s (ratio of ceilings ${ceilingRatio})`,
    ceiling: runplane.ceiling,
  };
  return {
    metric,
    runplane: runplane.perSecond,
    baseline: baseline.perSecond,
    unit: 'req/s',
    target: `ratio>=${min}`,
    pass,
    cpu,
  };
}

async function measureAll(
  parties: Omit<Target, 'server'>,
  servers: { gateway: ServerProcess; bare: ServerProcess },
  run: GatewayBenchOptions & Seeded,
): Promise<Row[]> {
  const gateway = { ...parties, server: servers.gateway };
  const bare = { ...parties, server: servers.bare };
  const { secret, podId } = run;
  const reads: [string, string, string][] = [
    ['GET /v1/pods/{id}', `/v1/pods/${podId}`, `/pods/${podId}`],
    ['GET /v1/endpoints', '/v1/endpoints', '/endpoints'],
    ['GET /v2/pods/{id}', `/v2/pods/${podId}`, `/pods/${podId}`],
  ];
  const rows: Row[] = [];
  // The bare server's first read (a Pod by id), which the informational /healthz row is set against.
  let barePodRead: number | undefined;
  for (const [name, path, barePath] of reads) {
    const both = await compare({ target: bare, path: barePath, secret }, { target: gateway, path, secret }, run);
    if (both.runplane.non2xx > 0) console.warn(`${name} answered ${both.runplane.non2xx} non-2xx responses`);
    barePodRead ??= both.baseline.perSecond;
    rows.push(ratioRow(`${name} vs bare Fastify + pg`, both, 0.5));
  }
  const refused = await compare(
    { target: gateway, path: '/healthz' },
    { target: gateway, path: `/v1/pods/${podId}`, secret: `rpl_${'x'.repeat(43)}` },
    run,
  );
  rows.push(ratioRow('refused key (401) vs GET /healthz', refused, 0.8));
  rows.push({
    metric: 'GET /healthz vs bare GET /pods/{id}',
    runplane: refused.baseline.perSecond,
    baseline: barePodRead ?? 0,
    unit: 'req/s',
    target: '-',
    pass: true,
  });
  return rows;
}

function printRows(rows: Row[]): void {
  printTable(
    'Gateway read path (baseline: bare Fastify + pg, same authenticated read; for a refused key: GET /healthz)',
    rows,
    44,
  );
  for (const row of rows) {
    if (row.cpu) console.log(`${row.metric}:\n  baseline ${row.cpu.baseline}\n  runplane ${row.cpu.runplane}`);
  }
}

/** Runs the gateway read-path suite, prints a table and writes bench/results/gateway.json. */
export async function benchGateway(options: GatewayBenchOptions): Promise<Row[]> {
  const databaseName = `runplane_bench_gateway_${process.pid}`;
  const database = await createBenchDatabase(options.adminDatabaseUrl, databaseName);
  const db = createPrismaClient(database.url);
  const prefix = `runplane-bench-gateway-${process.pid}`;
  const env = gatewayBenchEnv(database.url, prefix);
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const servers: ServerProcess[] = [];
  try {
    const seeded = await seed(db);
    const gateway = await startServer('apps/gateway/src/main.ts', env, options.cpuProfileDir);
    servers.push(gateway);
    const bare = await startServer('tools/bench/gateway/bare-server.ts', { DATABASE_URL: database.url });
    servers.push(bare);
    const parties = { redis, db, database: databaseName };
    const rows = await measureAll(parties, { gateway, bare }, { ...options, ...seeded });
    printRows(rows);
    writeResults('gateway', { options: { ...options, adminDatabaseUrl: undefined }, rows });
    return rows;
  } finally {
    for (const server of servers) await server.close();
    await cleanupRedisPrefix(redis, prefix);
    redis.disconnect();
    await db.$disconnect();
    await database.drop();
  }
}
