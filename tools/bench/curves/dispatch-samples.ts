// The workers curve's dispatch samples at one size: the dispatch p50s (Runplane's, the floor's beside them, and what
// splits them: the submit alone, a bare PING, the same after 1 ms of quiet) and the CPU each process spends per
// dispatch, Runplane's and the floor's.
import { setTimeout as sleep } from 'node:timers/promises';
import { resolveJobPolicy } from '@runplane/jobs';
import type { Redis } from '@runplane/queue';
import { ms, percentilesOf } from '../results';
import { INPUT, type Router } from '../jobs/router';
import { cpuPerDispatch, describeDispatchCpu, type DispatchCpu } from './dispatch-cpu';
import { type MinimalDispatch, minimalSubmit, type Takers } from './minimal-dispatch';

const SAMPLES = 50;
/** RunPod's default job policy, as a /run without `policy` gets it. */
const POLICY = resolveJobPolicy(undefined);

/** Queues one job through the router's own engine, as another job-router replica would. */
export async function submitOne(router: Router, endpointId: string): Promise<void> {
  await router.engine.submit({
    endpointId,
    accountId: router.accountId,
    input: INPUT,
    extra: {},
    policy: POLICY,
    sync: false,
  });
}

const p50 = (samples: number[]): number => percentilesOf(samples.sort((a, b) => a - b)).p50;

/** The dispatch floor of one size: the minimal dispatch server, its takes parked, and a Redis client to submit with. */
export interface Floor {
  server: MinimalDispatch;
  takers: Takers;
  redis: Redis;
}

/** One job submitted through Runplane (as another job-router replica) and one through the floor. */
interface Submits {
  submitted: () => Promise<void>;
  floorSubmitted: () => Promise<void>;
}

/** The p50s of one set of dispatch samples (see {@link dispatchP50}). */
interface DispatchP50s {
  /** Submit -> a parked take answers, after 10 ms of quiet each. */
  dispatch: number;
  /** The floor's dispatch (minimal-dispatch.ts) after the same quiet, its samples alternating with those. */
  floor: number;
  /** The same as dispatch, after 1 ms of quiet each: the processes on the path have not gone idle. */
  busy: number;
  /** Of the 10 ms samples, the submit's own round trip (its script's answer to the benchmark process). */
  submit: number;
  /** A Redis PING's round trip after the same 10 ms of quiet, between those samples: one bare hop. */
  ping: number;
}

/** One dispatch (`submit` -> a parked take answers) after `quietMs`: its latency and its submit's, in ms. */
export async function dispatchOnce(submit: () => Promise<void>, takers: Takers, quietMs: number) {
  await sleep(quietMs);
  const arrived = takers.next();
  const start = process.hrtime.bigint();
  await submit();
  const submitted = ms(start);
  await arrived;
  return { dispatch: ms(start), submit: submitted };
}

/**
 * Dispatch latencies, `SAMPLES` jobs one at a time after 10 ms of quiet (the target's), each followed by one of the
 * floor's after the same quiet and preceded by a Redis PING; then `SAMPLES` after 1 ms of quiet. On a VM, an idle
 * process's wake-up is much of the difference.
 */
async function dispatchP50(
  takers: Takers,
  floor: Floor,
  { submitted, floorSubmitted }: Submits,
): Promise<DispatchP50s> {
  const samples: Record<keyof DispatchP50s, number[]> = { dispatch: [], floor: [], busy: [], submit: [], ping: [] };
  for (let i = 0; i < SAMPLES; i += 1) {
    await sleep(10);
    const pinged = process.hrtime.bigint();
    await floor.redis.ping();
    samples.ping.push(ms(pinged));
    const sample = await dispatchOnce(submitted, takers, 10);
    samples.dispatch.push(sample.dispatch);
    samples.submit.push(sample.submit);
    samples.floor.push((await dispatchOnce(floorSubmitted, floor.takers, 10)).dispatch);
  }
  for (let i = 0; i < SAMPLES; i += 1) samples.busy.push((await dispatchOnce(submitted, takers, 1)).dispatch);
  const medians = Object.entries(samples).map(([key, values]) => [key, p50(values)]);
  return Object.fromEntries(medians) as unknown as DispatchP50s;
}

/** CPU per dispatch, Runplane's and the floor's, after the dispatch p50's quiet (see dispatch-cpu.ts). */
interface DispatchCpus {
  runplane: DispatchCpu;
  floor: DispatchCpu;
}

/** The CPU each process spends per dispatch, through Runplane and through the floor, after 10 ms of quiet each. */
async function dispatchCpus(routerPid: number, takers: Takers, floor: Floor, submits: Submits): Promise<DispatchCpus> {
  const { submitted, floorSubmitted } = submits;
  const runplane = await cpuPerDispatch(floor.redis, routerPid, () => dispatchOnce(submitted, takers, 10));
  const floorCpu = await cpuPerDispatch(floor.redis, floor.server.pid, () =>
    dispatchOnce(floorSubmitted, floor.takers, 10),
  );
  return { runplane, floor: floorCpu };
}

/** Runplane's takes and the floor's, `size` of each, parked. */
export interface ParkedSides {
  router: Router;
  endpointId: string;
  takers: Takers;
  floor: Floor;
  size: number;
}

/** The dispatch p50s, then the CPU per dispatch (also printed by process), of one size. */
export async function measureDispatch(sides: ParkedSides): Promise<{ latency: DispatchP50s; cpu: DispatchCpus }> {
  const { router, endpointId, takers, floor } = sides;
  const submits = {
    submitted: () => submitOne(router, endpointId),
    floorSubmitted: () => minimalSubmit(floor.redis, floor.server),
  };
  const latency = await dispatchP50(takers, floor, submits);
  const cpu = await dispatchCpus(router.pid, takers, floor, submits);
  const described = `Runplane ${describeDispatchCpu(cpu.runplane)}; floor ${describeDispatchCpu(cpu.floor)}`;
  console.log(`CPU per dispatch at ${sides.size} takes: ${described}`);
  return { latency, cpu };
}
