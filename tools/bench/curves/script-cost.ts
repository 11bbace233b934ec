// What Redis spends on one submission's script, apart from everything else: Runplane's SUBMIT (a job handed off to a
// registered take, and one queued with no take) against the dispatch floor's SET + PUBLISH (minimal-dispatch.ts), each
// after 10 ms and after 1 ms of quiet. Redis's own time per call, from INFO commandstats, with nothing else running
// scripts: the engine here has no takes, sweeper or router.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeTakerEntry, JobKeys, RedisJobEngine, resolveJobPolicy } from '@runplane/jobs';
import { createRedis, type Redis } from '@runplane/queue';
import { cleanupRedisPrefix } from '@runplane/testing';
import { INPUT } from '../jobs/router';
import type { Curve, Point } from './curve';
import { FLOOR_SUBMIT } from './minimal-dispatch';

const CALLS = 100;
const QUIETS_MS = [1, 10];
/** RunPod's default job policy, as a /run without `policy` gets it. */
const POLICY = resolveJobPolicy(undefined);

/** Calls and µs Redis has counted for `command` so far. */
async function commandStats(redis: Redis, command: 'evalsha' | 'eval'): Promise<{ calls: number; usec: number }> {
  const match = new RegExp(`cmdstat_${command}:calls=(\\d+),usec=(\\d+)`).exec(await redis.info('commandstats'));
  return { calls: Number(match?.[1] ?? 0), usec: Number(match?.[2] ?? 0) };
}

/** Redis's mean µs per `command` call over `CALLS` calls of `call`, each after `quietMs`; `prepare` runs first. */
async function meanUsec(
  redis: Redis,
  command: 'evalsha' | 'eval',
  quietMs: number,
  { prepare, call }: { prepare?: (i: number) => Promise<unknown>; call: () => Promise<unknown> },
): Promise<number> {
  const before = await commandStats(redis, command);
  for (let i = 0; i < CALLS; i += 1) {
    await prepare?.(i);
    await sleep(quietMs);
    await call();
  }
  const after = await commandStats(redis, command);
  return (after.usec - before.usec) / Math.max(1, after.calls - before.calls);
}

/** The three scripts' Redis time per call, by quiet (ms). */
export async function scriptCostCurves(redisUrl: string): Promise<Curve[]> {
  const redis = createRedis(redisUrl);
  const prefix = `bench:script-cost:${randomUUID()}`;
  const engine = new RedisJobEngine({ queueOrdered: redis, prefix, region: 'u1' });
  const takers = JobKeys.ofPrefix(prefix).endpoint('handed', 'takers');
  const submit = (endpointId: string) => () =>
    engine.submit({ endpointId, accountId: 'bench', input: INPUT, extra: {}, policy: POLICY, sync: false });
  // A take registered by a replica that is not listening: SUBMIT claims the job for it and publishes the hand-off.
  const registerTake = (i: number) =>
    redis.rpush(
      takers,
      encodeTakerEntry({ origin: 'elsewhere', takeId: `take-${i}`, expiresAt: Date.now() + 60_000, workerId: `w${i}` }),
    );
  const floorCall = () => {
    const id = randomUUID();
    return redis.eval(
      FLOOR_SUBMIT,
      2,
      `${prefix}:floor:${id}`,
      `${prefix}:floor`,
      JSON.stringify({ id, input: INPUT }),
    );
  };
  const series: Record<'handed' | 'queued' | 'floor', Point[]> = { handed: [], queued: [], floor: [] };
  try {
    for (let i = 0; i < CALLS; i += 1) await submit('warm-up')();
    for (const quiet of QUIETS_MS) {
      series.handed.push({
        n: quiet,
        cost: await meanUsec(redis, 'evalsha', quiet, { prepare: registerTake, call: submit('handed') }),
      });
      series.queued.push({ n: quiet, cost: await meanUsec(redis, 'evalsha', quiet, { call: submit('queued') }) });
      series.floor.push({ n: quiet, cost: await meanUsec(redis, 'eval', quiet, { call: floorCall }) });
    }
  } finally {
    await engine.close();
    await cleanupRedisPrefix(redis, prefix);
    redis.disconnect();
  }
  return curvesOf(series);
}

function curvesOf(series: Record<'handed' | 'queued' | 'floor', Point[]>): Curve[] {
  const curve = (name: string, points: Point[]): Curve => ({ name, nLabel: 'quiet before (ms)', unit: 'µs', points });
  return [
    curve('Redis µs per SUBMIT, job handed off to a registered take (INFO commandstats, mean)', series.handed),
    curve('Redis µs per SUBMIT, job queued (no take registered)', series.queued),
    curve("Redis µs per the dispatch floor's script (SET + PUBLISH)", series.floor),
  ];
}
