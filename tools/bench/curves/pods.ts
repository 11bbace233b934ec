// Pods curve: 100, 1,000 and 10,000 Pods in one account, read through a gateway process (apps/gateway/src/main.ts on
// its own database): GET /v1/pods (all), GET /v2/pods pages (the first, and one from the middle at the default and
// maximum page size and at 100) and GraphQL `myself { pods }` with runpod-python's and runpodctl's query texts.
import { createPrismaClient, type DbClient } from '@runplane/db';
import { createRedis } from '@runplane/queue';
import { cleanupRedisPrefix } from '@runplane/testing';
// The rule's `graphql/*` pattern (graphql-js) also matches this fixtures folder's path; nothing here imports graphql-js.
// eslint-disable-next-line @typescript-eslint/no-restricted-imports
import { CTL_MY_PODS, PY_GET_PODS } from '../../../apps/gateway/test/fixtures/graphql/runpod-texts';
import { createBenchDatabase } from '../bench-database';
import { type ServerProcess, startServer } from '../bench-process';
import { gatewayBenchEnv } from '../gateway/processes';
import { call, type JobsBenchOptions } from '../jobs/router';
import { ms, percentilesOf } from '../results';
import type { Curve, Point } from './curve';
import { type PodsAccount, seedAccount, seedPods } from './pods-seed';

/** One read of the curve: how to make it at size n, and how many Pods its answer carries. */
interface Read {
  name: string;
  /** A full list (its cost should grow linearly with n) or a page (its cost should not grow with n). */
  kind: 'list' | 'page';
  request(n: number): Promise<{ status: number; text: string }>;
  count(text: string): number;
}

interface Measured {
  p50: Point[];
  p99: Point[];
  perPod: Point[];
  /** Pods each answer carried, by size. */
  returned: number[];
}

/** Requests per read at size n: 100 of a page or a small list, fewer where one read returns 10,000 Pods. */
const samplesAt = (read: Read, n: number): number => (read.kind === 'page' || n < 1000 ? 100 : n >= 10_000 ? 10 : 30);
const WARMUP = 2;

async function v2Page(server: ServerProcess, secret: string, query: string): Promise<{ status: number; text: string }> {
  return call(`${server.base}/v2/pods${query}`, { headers: { authorization: `Bearer ${secret}` } });
}

/** The `nextCursor` after the first half of the account's n Pods, walked page by page as a client would. */
async function middleCursor(server: ServerProcess, secret: string, n: number): Promise<string> {
  const limit = Math.min(1000, Math.max(1, Math.floor(n / 2)));
  let cursor: string | null = null;
  for (let seen = 0; seen < Math.floor(n / 2); seen += limit) {
    const query: string = `?limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
    const page = JSON.parse((await v2Page(server, secret, query)).text) as { pagination: { nextCursor: string } };
    cursor = page.pagination.nextCursor;
  }
  if (cursor === null) throw new Error(`no v2 cursor half way through ${n} Pods`);
  return cursor;
}

function reads(server: ServerProcess, secret: string, cursors: Map<number, string>): Read[] {
  const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
  const v2Count = (text: string): number => (JSON.parse(text) as { pods: unknown[] }).pods.length;
  const graphqlCount = (text: string): number => {
    const body = JSON.parse(text) as { data?: { myself: { pods: unknown[] } }; errors?: unknown[] };
    if (!body.data || body.errors) throw new Error(`GraphQL answered errors: ${text.slice(0, 300)}`);
    return body.data.myself.pods.length;
  };
  const graphql = (query: string) => () =>
    call(`${server.base}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query }) });
  const middle = (n: number): string => encodeURIComponent(cursors.get(n) ?? '');
  // Pages first: a full list of 10,000 Pods leaves the gateway a heap of garbage whose collection would land on them.
  return [
    { name: 'GET /v2/pods first page (1000)', kind: 'page', request: () => v2Page(server, secret, ''), count: v2Count },
    {
      name: 'GET /v2/pods middle page (1000)',
      kind: 'page',
      request: (n) => v2Page(server, secret, `?cursor=${middle(n)}`),
      count: v2Count,
    },
    {
      name: 'GET /v2/pods middle page (100)',
      kind: 'page',
      request: (n) => v2Page(server, secret, `?limit=100&cursor=${middle(n)}`),
      count: v2Count,
    },
    {
      name: 'GET /v1/pods',
      kind: 'list',
      request: () => call(`${server.base}/v1/pods`, { headers }),
      count: (text) => (JSON.parse(text) as unknown[]).length,
    },
    { name: 'GraphQL myself pods (runpod-python)', kind: 'list', request: graphql(PY_GET_PODS), count: graphqlCount },
    { name: 'GraphQL myself pods (runpodctl)', kind: 'list', request: graphql(CTL_MY_PODS), count: graphqlCount },
  ];
}

/** p50 and p99 of `read` at size n, and ms per Pod of its answer at the p50. */
async function measureRead(read: Read, n: number): Promise<{ p50: number; p99: number; pods: number }> {
  const latencies: number[] = [];
  let pods = 0;
  for (let i = 0; i < WARMUP + samplesAt(read, n); i += 1) {
    const start = process.hrtime.bigint();
    const response = await read.request(n);
    const elapsed = ms(start);
    if (response.status !== 200) throw new Error(`${read.name} answered ${response.status}: ${response.text}`);
    if (i === 0) pods = read.count(response.text);
    if (i >= WARMUP) latencies.push(elapsed);
  }
  return { ...percentilesOf(latencies.sort((a, b) => a - b)), pods };
}

async function measureSizes(server: ServerProcess, db: DbClient, account: PodsAccount, sizes: number[]) {
  const cursors = new Map<number, string>();
  const all = reads(server, account.secret, cursors);
  const measured = new Map(all.map((read) => [read.name, { p50: [], p99: [], perPod: [], returned: [] } as Measured]));
  let seeded = 0;
  for (const n of sizes) {
    await seedPods(db, account, seeded, n);
    seeded = n;
    cursors.set(n, await middleCursor(server, account.secret, n));
    for (const read of all) {
      const { p50, p99, pods } = await measureRead(read, n);
      const into = measured.get(read.name) as Measured;
      into.p50.push({ n, cost: p50 });
      into.p99.push({ n, cost: p99 });
      into.perPod.push({ n, cost: p50 / Math.max(1, pods) });
      into.returned.push(pods);
      console.log(`${read.name} at ${n} Pods: ${pods} returned, p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms`);
    }
  }
  return { all, measured };
}

const LINEAR = 'linear (ms per Pod at the largest <= 1.5x at the one before)';
const FLAT = 'flat (p50 at the largest <= 1.5x the one before, scaled by the Pods the page returns, + 1 ms)';

function toCurves(all: Read[], measured: Map<string, Measured>): Curve[] {
  const curves: Curve[] = [];
  for (const read of all) {
    const { p50, p99, perPod, returned } = measured.get(read.name) as Measured;
    const last = (points: Point[]): number => points.at(-1)?.cost ?? Infinity;
    const before = (points: Point[]): number => points.at(-2)?.cost ?? 0;
    const base = { nLabel: 'Pods in the account', unit: 'ms' };
    if (read.kind === 'list') {
      const pass = last(perPod) <= 1.5 * before(perPod);
      curves.push({ ...base, name: `${read.name} p50`, points: p50 });
      curves.push({ ...base, name: `${read.name} ms per Pod`, points: perPod, target: LINEAR, pass });
    } else {
      // A middle page of 1,000 holds 500 Pods at 1,000 Pods and 1,000 at 10,000: its work grows that much, no more.
      const fuller = Math.max(1, (returned.at(-1) ?? 0) / Math.max(1, returned.at(-2) ?? 0));
      const pass = last(p50) <= 1.5 * before(p50) * fuller + 1;
      curves.push({ ...base, name: `${read.name} p50`, points: p50, target: FLAT, pass });
    }
    curves.push({ ...base, name: `${read.name} p99`, points: p99 });
  }
  return curves;
}

/** The Pods curves at sizes scaled by `factor` (1 = 100, 1,000 and 10,000 Pods in one account). */
export async function podsCurves(options: JobsBenchOptions, factor: number): Promise<Curve[]> {
  const sizes = [100, 1000, 10_000].map((size) => Math.max(2, Math.round(size * factor)));
  const database = await createBenchDatabase(options.adminDatabaseUrl, `runplane_bench_pods_${process.pid}`);
  const db = createPrismaClient(database.url);
  const prefix = `runplane-bench-pods-${process.pid}`;
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const env = gatewayBenchEnv(database.url, prefix);
  let server: ServerProcess | undefined;
  try {
    const account = await seedAccount(db);
    server = await startServer('apps/gateway/src/main.ts', env, options.cpuProfileDir);
    const { all, measured } = await measureSizes(server, db, account, sizes);
    return toCurves(all, measured);
  } finally {
    await server?.close();
    await cleanupRedisPrefix(redis, prefix);
    redis.disconnect();
    await db.$disconnect();
    await database.drop();
  }
}
