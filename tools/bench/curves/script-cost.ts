// What Redis spends on one submission's script, apart from everything else: Runplane's SUBMIT (a job handed off to a
// registered take, and one queued with no take) against the dispatch floor's SET + PUBLISH (minimal-dispatch.ts), each
// after 10 ms and after 1 ms of quiet. Redis's own time per call, from INFO commandstats, with nothing else running
// scripts: the engine here has no takes, sweeper or router. Two more rows split SUBMIT's fixed cost from its commands:
// a script that only defines SUBMIT's helpers (SUBMIT_HELPERS) and returns, and one that only returns.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeTakerEntry, JobKeys, RedisJobEngine, resolveJobPolicy, SUBMIT_HELPERS } from '@runplane/jobs';
import { createRedis, LuaScript, type Redis } from '@runplane/queue';
import { cleanupRedisPrefix } from '@runplane/testing';
import { INPUT } from '../jobs/router';
import type { Curve, Point } from './curve';
import { FLOOR_SUBMIT } from './minimal-dispatch';

const CALLS = 100;
const QUIETS_MS = [1, 10];
/** RunPod's default job policy, as a /run without `policy` gets it. */
const POLICY = resolveJobPolicy(undefined);
/** A script that defines what SUBMIT defines before its first command, and returns. */
const HELPERS_ONLY = new LuaScript(`${SUBMIT_HELPERS}\nreturn 1`);
/** A script that only returns: what any EVALSHA costs Redis. */
const BARE = new LuaScript('return 1');

/** What every SUBMIT here records, but for its endpoint: a /run of the bench's input with RunPod's default policy. */
const SUBMISSION = { accountId: 'bench', input: INPUT, extra: {}, policy: POLICY, sync: false };

/** The series of {@link scriptCostCurves}, by script. */
type Series = Record<'handed' | 'queued' | 'floor' | 'helpers' | 'bare', Point[]>;

/** Calls and µs Redis has counted for `command` so far. */
async function commandStats(redis: Redis, command: 'evalsha' | 'eval'): Promise<{ calls: number; usec: number }> {
  const match = new RegExp(`cmdstat_${command}:calls=(\\d+),usec=(\\d+)`).exec(await redis.info('commandstats'));
  return { calls: Number(match?.[1] ?? 0), usec: Number(match?.[2] ?? 0) };
}

/** Redis's mean µs per `command` call over `CALLS` calls of `call`, each after `quietMs`; `prepare` runs first. */
async function meanUsec(redis: Redis, quietMs: number, { command, prepare, call }: ScriptCall): Promise<number> {
  const before = await commandStats(redis, command);
  for (let i = 0; i < CALLS; i += 1) {
    await prepare?.(i);
    await sleep(quietMs);
    await call();
  }
  const after = await commandStats(redis, command);
  return (after.usec - before.usec) / Math.max(1, after.calls - before.calls);
}

/** One script of the curve: the command Redis counts it under, and how to call it (after `prepare`, unmeasured). */
interface ScriptCall {
  command: 'evalsha' | 'eval';
  prepare?: (i: number) => Promise<unknown>;
  call: () => Promise<unknown>;
}

/** The scripts measured, by series: SUBMIT through an engine of its own (prefix `prefix`), and the others. */
function scriptsOf(redis: Redis, engine: RedisJobEngine, prefix: string): Record<keyof Series, ScriptCall> {
  const takers = JobKeys.ofPrefix(prefix).endpoint('handed', 'takers');
  const submit = (endpointId: string) => () => engine.submit({ ...SUBMISSION, endpointId });
  // A take registered by a replica that is not listening: SUBMIT claims the job for it and publishes the hand-off.
  const registerTake = (i: number) =>
    redis.rpush(
      takers,
      encodeTakerEntry({ origin: 'elsewhere', takeId: `take-${i}`, expiresAt: Date.now() + 60_000, workerId: `w${i}` }),
    );
  const floorCall = () => {
    const id = randomUUID();
    const job = JSON.stringify({ id, input: INPUT });
    return redis.eval(FLOOR_SUBMIT, 2, `${prefix}:floor:${id}`, `${prefix}:floor`, job);
  };
  return {
    handed: { command: 'evalsha', prepare: registerTake, call: submit('handed') },
    queued: { command: 'evalsha', call: submit('queued') },
    floor: { command: 'eval', call: floorCall },
    helpers: { command: 'evalsha', call: () => HELPERS_ONLY.run(redis, [`${prefix}:`]) },
    bare: { command: 'evalsha', call: () => BARE.run(redis, []) },
  };
}

/** The scripts' Redis time per call, by quiet (ms). */
export async function scriptCostCurves(redisUrl: string): Promise<Curve[]> {
  const redis = createRedis(redisUrl);
  const prefix = `bench:script-cost:${randomUUID()}`;
  const engine = new RedisJobEngine({ queueOrdered: redis, prefix, region: 'u1' });
  const scripts = scriptsOf(redis, engine, prefix);
  const series: Series = { handed: [], queued: [], floor: [], helpers: [], bare: [] };
  try {
    for (let i = 0; i < CALLS; i += 1) await engine.submit({ ...SUBMISSION, endpointId: 'warm-up' });
    for (const quiet of QUIETS_MS) {
      for (const [name, script] of Object.entries(scripts) as [keyof Series, ScriptCall][])
        series[name].push({ n: quiet, cost: await meanUsec(redis, quiet, script) });
    }
  } finally {
    await engine.close();
    await cleanupRedisPrefix(redis, prefix);
    redis.disconnect();
  }
  return curvesOf(series);
}

function curvesOf(series: Series): Curve[] {
  const curve = (name: string, points: Point[]): Curve => ({ name, nLabel: 'quiet before (ms)', unit: 'µs', points });
  return [
    curve('Redis µs per SUBMIT, job handed off to a registered take (INFO commandstats, mean)', series.handed),
    curve('Redis µs per SUBMIT, job queued (no take registered)', series.queued),
    curve("Redis µs per the dispatch floor's script (SET + PUBLISH)", series.floor),
    curve("Redis µs per a script defining SUBMIT's helpers only (no command)", series.helpers),
    curve('Redis µs per a script that only returns', series.bare),
  ];
}
