// The gateway's read path: authenticated reads on the gateway process against bare Fastify + pg doing the same
// authenticated read (key lookup by hash + the row), and a refused key against GET /healthz, in the same run.
import { availableParallelism } from 'node:os';
import autocannon from 'autocannon';
import { createAccountsServices } from '@runplane/accounts';
import { createPrismaClient, type DbClient, newId } from '@runplane/db';
import { createRedis, type Redis } from '@runplane/queue';
import { cleanupRedisPrefix } from '@runplane/testing';
import { createBenchDatabase } from './bench-database';
import { measureCpu, perOperation } from './cpu-meter';
import { measurePostgresCpu } from './gateway/postgres-cpu';
import { gatewayBenchEnv, type ServerProcess, startServer } from './gateway/processes';
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

async function measure(
  target: Target,
  path: string,
  options: GatewayBenchOptions & { secret?: string },
): Promise<Measured> {
  const { server } = target;
  const {
    result: { result, cpu },
    postgresMs,
  } = await measurePostgresCpu(target.db, target.database, () =>
    measureCpu(target.redis, server.pid, () =>
      autocannon({
        url: `${server.base}${path}`,
        duration: options.durationSeconds,
        connections: options.connections,
        headers: options.secret ? { authorization: `Bearer ${options.secret}` } : {},
      }),
    ),
  );
  const total = Math.max(1, result.requests.total);
  const us = (ms: number): number => (ms * 1000) / total;
  return {
    perSecond: result.requests.average,
    non2xx: result.non2xx,
    // perOperation's "router" is the server process under load: the gateway, or the bare baseline.
    cpu: `${perOperation(cpu, total)}, postgres ${us(postgresMs).toFixed(0)}`,
    ceiling: ceilingOf({ bench: us(cpu.bench), server: us(cpu.router), postgres: us(postgresMs) }),
  };
}

/**
 * A throughput row of `runplane` against `baseline` with target `ratio>=min`. Each side's CPU figures end with its
 * CPU ceiling; the ratio of the two ceilings is the ratio a machine with nothing else running would show, where the
 * measured one swings with the neighbours' load.
 */
function ratioRow(metric: string, runplane: Measured, baseline: Measured, min: number): Row {
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
  const keyed = { ...run, secret: run.secret };
  const barePod = await measure(bare, `/pods/${run.podId}`, keyed);
  const bareEndpoints = await measure(bare, '/endpoints', keyed);
  const healthz = await measure(gateway, '/healthz', run);
  const reads: [string, string, Measured][] = [
    ['GET /v1/pods/{id}', `/v1/pods/${run.podId}`, barePod],
    ['GET /v1/endpoints', '/v1/endpoints', bareEndpoints],
    ['GET /v2/pods/{id}', `/v2/pods/${run.podId}`, barePod],
  ];
  const rows: Row[] = [];
  for (const [name, path, baseline] of reads) {
    const measured = await measure(gateway, path, keyed);
    if (measured.non2xx > 0) console.warn(`${name} answered ${measured.non2xx} non-2xx responses`);
    rows.push(ratioRow(`${name} vs bare Fastify + pg`, measured, baseline, 0.5));
  }
  const refused = await measure(gateway, `/v1/pods/${run.podId}`, { ...run, secret: `rpl_${'x'.repeat(43)}` });
  rows.push(ratioRow('refused key (401) vs GET /healthz', refused, healthz, 0.8));
  rows.push({
    metric: 'GET /healthz vs bare GET /pods/{id}',
    runplane: healthz.perSecond,
    baseline: barePod.perSecond,
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
