// The gateway's read path: authenticated reads on the gateway process against bare Fastify + pg doing the same
// authenticated read (key lookup by hash + the row), and a refused key against GET /healthz, in the same run.
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { createAccountsServices } from '@runplane/accounts';
import { createPrismaClient, type DbClient, newId } from '@runplane/db';
import { createRedis, type Redis } from '@runplane/queue';
import { cleanupRedisPrefix } from '@runplane/testing';
import { createBenchDatabase } from './bench-database';
import { cpuCeiling, measureCpu, perOperation } from './cpu-meter';
import { type ServerProcess, startServer } from './gateway/processes';
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
  /** The server process's CPU µs per request. */
  serverUs: number;
  cpu: string;
  ceiling: number;
}

async function measure(
  redis: Redis,
  server: ServerProcess,
  path: string,
  options: GatewayBenchOptions & { secret?: string },
): Promise<Measured> {
  const { result, cpu } = await measureCpu(redis, server.pid, () =>
    autocannon({
      url: `${server.base}${path}`,
      duration: options.durationSeconds,
      connections: options.connections,
      headers: options.secret ? { authorization: `Bearer ${options.secret}` } : {},
    }),
  );
  const total = result.requests.total;
  return {
    perSecond: result.requests.average,
    non2xx: result.non2xx,
    serverUs: (cpu.router * 1000) / Math.max(1, total),
    cpu: perOperation(cpu, total),
    ceiling: cpuCeiling(cpu, total),
  };
}

/** A throughput row of `runplane` against `baseline` with target `ratio>=min`. */
function ratioRow(metric: string, runplane: Measured, baseline: Measured, min: number): Row {
  const pass = runplane.perSecond / baseline.perSecond >= min;
  const cpu = { baseline: baseline.cpu, runplane: runplane.cpu, ceiling: runplane.ceiling };
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
  redis: Redis,
  servers: { gateway: ServerProcess; bare: ServerProcess },
  run: GatewayBenchOptions & Seeded,
): Promise<Row[]> {
  const { gateway, bare } = servers;
  const keyed = { ...run, secret: run.secret };
  const baseline = await measure(redis, bare, `/pods/${run.podId}`, keyed);
  const healthz = await measure(redis, gateway, '/healthz', run);
  const reads: [string, string][] = [
    ['GET /v1/pods/{id}', `/v1/pods/${run.podId}`],
    ['GET /v1/endpoints', '/v1/endpoints'],
    ['GET /v2/pods/{id}', `/v2/pods/${run.podId}`],
  ];
  const rows: Row[] = [];
  for (const [name, path] of reads) {
    const measured = await measure(redis, gateway, path, keyed);
    if (measured.non2xx > 0) console.warn(`${name} answered ${measured.non2xx} non-2xx responses`);
    rows.push(ratioRow(`${name} vs bare Fastify + pg`, measured, baseline, 0.5));
  }
  const refused = await measure(redis, gateway, `/v1/pods/${run.podId}`, { ...run, secret: `rpl_${'x'.repeat(43)}` });
  rows.push(ratioRow('refused key (401) vs GET /healthz', refused, healthz, 0.8));
  rows.push({
    metric: 'GET /healthz vs bare baseline',
    runplane: healthz.perSecond,
    baseline: baseline.perSecond,
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
    if (!row.cpu) continue;
    // perOperation's "router" is the server process under load: the gateway, or the bare baseline.
    console.log(`${row.metric}: baseline ${row.cpu.baseline}; runplane ${row.cpu.runplane}`);
    if (row.cpu.ceiling !== undefined && row.baseline) {
      const ceiling = row.cpu.ceiling;
      console.log(
        `  CPU ceiling at this CPU per request: ${ceiling.toFixed(0)} req/s (ratio ${(ceiling / row.baseline).toFixed(2)})`,
      );
    }
  }
}

/** Runs the gateway read-path suite, prints a table and writes bench/results/gateway.json. */
export async function benchGateway(options: GatewayBenchOptions): Promise<Row[]> {
  const database = await createBenchDatabase(options.adminDatabaseUrl, `runplane_bench_gateway_${process.pid}`);
  const db = createPrismaClient(database.url);
  const prefix = `runplane-bench-gateway-${process.pid}`;
  const env = {
    DATABASE_URL: database.url,
    REDIS_PREFIX: prefix,
    RUNPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'error',
    // The v2 quotas would refuse a benchmark's load; their cost is one Redis call per request either way.
    V2_RATE_LIMIT_PER_MINUTE: '0',
    V2_RATE_LIMIT_PER_HOUR: '0',
    V2_RATE_LIMIT_PER_DAY: '0',
  };
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const servers: ServerProcess[] = [];
  try {
    const seeded = await seed(db);
    const gateway = await startServer('apps/gateway/src/main.ts', env, options.cpuProfileDir);
    servers.push(gateway);
    const bare = await startServer('tools/bench/gateway/bare-server.ts', { DATABASE_URL: database.url });
    servers.push(bare);
    const rows = await measureAll(redis, { gateway, bare }, { ...options, ...seeded });
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
