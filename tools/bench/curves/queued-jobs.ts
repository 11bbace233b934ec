// Queued-jobs curve: up to 1,000,000 queued jobs over 100 endpoints. Redis memory per queued job beyond its payload,
// /run p50 and /health p50 as the queue grows, and the purge of 100,000 queued jobs.
import { resolveJobPolicy } from '@runplane/jobs';
import { createRedis, type Redis } from '@runplane/queue';
import { ms, percentilesOf } from '../results';
import { call, INPUT, type JobsBenchOptions, type Router, startRouter } from '../jobs/router';
import type { Curve, Point } from './curve';

const ENDPOINTS = 100;
const SAMPLES = 100;
const BATCH = 500;
/** RunPod's default job policy, as a /run without `policy` gets it. */
const POLICY = resolveJobPolicy(undefined);
const PAYLOAD_BYTES = Buffer.byteLength(JSON.stringify(INPUT));

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
}

/** Deletes every key of the bench router's own prefix (never the whole database: the Redis is shared). */
async function deletePrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.unlink(...keys);
  } while (cursor !== '0');
}

/** Submits `count` jobs through the engine (no HTTP: seeding), spread round-robin over `endpoints`. */
async function seed(router: Router, endpoints: string[], count: number): Promise<void> {
  for (let done = 0; done < count; done += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, count - done) }, (_, i) =>
      router.engine.submit({
        endpointId: endpoints[(done + i) % endpoints.length] ?? '',
        accountId: router.accountId,
        input: INPUT,
        extra: {},
        policy: POLICY,
        sync: false,
      }),
    );
    await Promise.all(batch);
  }
}

/** p50 in ms of `SAMPLES` sequential requests made by `request`. */
async function p50(request: () => Promise<{ status: number }>): Promise<number> {
  const latencies: number[] = [];
  for (let i = 0; i < SAMPLES; i += 1) {
    const start = process.hrtime.bigint();
    const response = await request();
    if (response.status >= 300) throw new Error(`bench request answered ${response.status}`);
    latencies.push(ms(start));
  }
  return percentilesOf(latencies.sort((a, b) => a - b)).p50;
}

interface Measured {
  memory: Point[];
  run: Point[];
  health: Point[];
}

async function measureDepths(router: Router, redis: Redis, depths: number[]): Promise<Measured> {
  const endpoints = await Promise.all(Array.from({ length: ENDPOINTS }, () => router.endpoint()));
  const probe = endpoints[0] ?? '';
  const headers = { authorization: `Bearer ${router.secret}`, 'content-type': 'application/json' };
  const body = JSON.stringify({ input: INPUT });
  const measured: Measured = { memory: [], run: [], health: [] };
  const base = await usedMemory(redis);
  let queued = 0;
  for (const depth of depths) {
    await seed(router, endpoints, depth - queued);
    queued = depth;
    const perJob = ((await usedMemory(redis)) - base) / queued - PAYLOAD_BYTES;
    measured.memory.push({ n: depth, cost: perJob });
    const runUrl = `${router.base}/v2/${probe}/run`;
    measured.run.push({ n: depth, cost: await p50(() => call(runUrl, { method: 'POST', headers, body })) });
    queued += SAMPLES;
    const healthUrl = `${router.base}/v2/${probe}/health`;
    measured.health.push({ n: depth, cost: await p50(() => call(healthUrl, { headers })) });
  }
  return measured;
}

/** Time to purge `count` queued jobs of one endpoint (POST /purge-queue's engine call). */
async function measurePurge(router: Router, count: number): Promise<Point> {
  const endpointId = await router.endpoint();
  await seed(router, [endpointId], count);
  const start = process.hrtime.bigint();
  const purged = await router.engine.purgeQueue(endpointId);
  const cost = ms(start);
  if (purged !== count) throw new Error(`purge removed ${purged} of ${count} jobs`);
  return { n: count, cost };
}

const FLAT = 'flat (last <= 2x first + 0.5 ms)';
const flat = (points: Point[]): boolean => (points.at(-1)?.cost ?? 0) <= 2 * (points[0]?.cost ?? 0) + 0.5;

function toCurves({ memory, run, health }: Measured, purge: Point): Curve[] {
  const byDepth = (name: string, unit: string, points: Point[], verdict: Pick<Curve, 'target' | 'pass'>): Curve => ({
    name,
    nLabel: 'queued jobs',
    unit,
    points,
    ...verdict,
  });
  const maxMemory = memory.every((point) => point.cost <= 512);
  return [
    byDepth('Redis memory per queued job beyond payload', 'bytes', memory, { target: '<= 512 bytes', pass: maxMemory }),
    byDepth('/run p50 by queue depth', 'ms', run, { target: FLAT, pass: flat(run) }),
    byDepth('/health p50 by queue depth', 'ms', health, { target: FLAT, pass: flat(health) }),
    { name: 'purge of queued jobs', nLabel: 'queued jobs', unit: 'ms', points: [purge] },
  ];
}

/** The queued-jobs curves at depths scaled by `factor` (1 = 10,000, 100,000 and 1,000,000 jobs). */
export async function queuedJobsCurves(options: JobsBenchOptions, factor: number): Promise<Curve[]> {
  const depths = [10_000, 100_000, 1_000_000].map((depth) => Math.round(depth * factor));
  const router = await startRouter(options);
  const redis = createRedis(router.config.REDIS_URL);
  try {
    const measured = await measureDepths(router, redis, depths);
    return toCurves(measured, await measurePurge(router, Math.round(100_000 * factor)));
  } finally {
    await deletePrefix(redis, router.config.REDIS_PREFIX);
    redis.disconnect();
    await router.close();
  }
}
