import { defineLuaScript } from '@runplane/queue';
import { type Admission, admissionArgv, type RefusedReply } from './admission';
import * as lua from './lua';
import * as running from './running-lua';
import { SUBMIT } from './submit-lua';

/**
 * The engine's Lua scripts, each with its named arguments mapped to ARGV in one place (ARGV[1] is always `base`, the
 * engine's key base). Replies are as each script documents them (lua.ts, submit-lua.ts, running-lua.ts,
 * sweep-lua.ts). Which connection a script runs on is the caller's choice: see RedisJobEngineOptions for what each one
 * guarantees.
 */

/** What every script is given: the engine's key base (`JobKeys.base`). */
interface Based {
  base: string;
}

/** A job of an endpoint. */
interface JobRef extends Based {
  endpointId: string;
  jobId: string;
}

/** A worker of an endpoint. */
interface WorkerRef extends Based {
  endpointId: string;
  workerId: string;
}

/** Arguments of {@link SCRIPTS.submit}. */
export interface SubmitArgs extends JobRef {
  now: number;
  /** When the job's ttl runs out; undefined for the default ttl (the endpoint's queue member in the expiry index). */
  ttlAt?: number;
  lowPriority: boolean;
  /** The queued-job wake to publish when the job is queued ('' for none). */
  announce: string;
  /** Hand the job to a take registered by another replica, if there is one. */
  handOff: boolean;
  /** Claim the job at once for this worker (a take parked on the submitting replica). */
  claimFor?: string;
  /** Counters to count the job against first; it is recorded only when they admit it. */
  admission?: Admission;
  /** The record's hash fields, as field/value pairs. */
  fields: (string | number)[];
}

/** What SUBMIT answers; see {@link SCRIPTS.submit}. */
export type SubmitReply = number | ClaimedJob | 'retired' | RefusedReply;

/** What CLAIM gives a take: the job's input and extra (JSON) and its W3C traceparent ('' when it has none). */
export type ClaimedJob = [input: string, extra: string, traceparent: string];

/** Arguments of {@link SCRIPTS.claim}. */
export interface ClaimArgs extends JobRef {
  workerId: string;
  now: number;
}

/** Arguments of {@link SCRIPTS.take}. */
export interface TakeArgs extends WorkerRef {
  now: number;
  /** Most jobs to give. */
  count: number;
  /** Registers the take when there is nothing to give (see TAKE); none for a take that does not wait. */
  registration?: TakeRegistration;
}

/** How TAKE registers a take that found nothing: its entry in `<ep>:takers`. */
export interface TakeRegistration {
  /** The take's TakerEntry, the same text at each of its looks. */
  entry: string;
  /** The take registered before (its entry is removed before it is added again). */
  again: boolean;
  /** How long the takers list is kept at least (a replica that died leaves its entries behind). */
  ttlMs: number;
}

/** Arguments of {@link SCRIPTS.complete}: a worker's job-done, already encoded. */
export interface CompleteArgs extends JobRef {
  workerId: string;
  now: number;
  /** A progress update (the job goes on), or the final result. */
  kind: 'progress' | 'final';
  status: 'COMPLETED' | 'FAILED';
  /** The output as JSON, when there is one. */
  output?: string;
  /** The error text, when the job failed. */
  error?: string;
  /** The worker asks to be recycled. */
  stopPod: boolean;
}

/** Arguments of {@link SCRIPTS.retire}. */
export interface RetireArgs extends WorkerRef {
  onlyIfIdle: boolean;
  /** How long the mark outlives the worker. */
  ttlMs: number;
  /** When the worker was removed (ms since the epoch): the mark's value. */
  at: number;
}

const flag = (value: boolean): string => (value ? '1' : '0');
const registerMode = (registration: TakeRegistration | undefined): string =>
  registration === undefined ? '0' : registration.again ? '2' : '1';
const job = (a: JobRef): string[] => [a.base, a.endpointId, a.jobId];
const worker = (a: WorkerRef): string[] => [a.base, a.endpointId, a.workerId];

/** The engine's scripts, loaded once per process. */
export const SCRIPTS = {
  /**
   * Records and queues a job: 0 (the id exists), 1 (queued) or 2 (handed to a registered take); with `claimFor`, the
   * claim's `[input, extra, traceparent]`, or 'retired'; with an `admission` that refuses it, the refusal.
   */
  submit: defineLuaScript<SubmitArgs, SubmitReply>(SUBMIT, (a) => ({
    argv: [
      ...job(a),
      a.now,
      a.ttlAt ?? '',
      flag(a.lowPriority),
      a.announce,
      flag(a.handOff),
      a.claimFor ?? '',
      ...admissionArgv(a.admission),
      ...a.fields,
    ],
  })),
  /** `[input, extra, traceparent]` (traceparent '' when none), null when the job is not IN_QUEUE, or 'retired'. */
  claim: defineLuaScript<ClaimArgs, ClaimedJob | 'retired' | null>(lua.CLAIM, (a) => ({
    argv: [...job(a), a.workerId, a.now],
  })),
  /** `[id, input, extra, traceparent, ...]` for each job given, oldest first, or 'retired'. */
  take: defineLuaScript<TakeArgs, string[] | 'retired'>(lua.TAKE, (a) => ({
    argv: [
      ...worker(a),
      a.now,
      a.count,
      registerMode(a.registration),
      a.registration?.entry ?? '',
      a.registration?.ttlMs ?? 0,
    ],
  })),
  /** 1, or 0 when the job is no longer that worker's. */
  unclaim: defineLuaScript<JobRef & { workerId: string }, number>(lua.UNCLAIM, (a) => ({
    argv: [...job(a), a.workerId],
  })),
  /** 1, or 0 when `onlyIfIdle` and the worker holds a job. */
  retire: defineLuaScript<RetireArgs, number>(lua.RETIRE, (a) => ({
    argv: [...worker(a), flag(a.onlyIfIdle), a.ttlMs, a.at],
  })),
  /** missing | ignored | progress | done | webhook. */
  complete: defineLuaScript<CompleteArgs, string>(lua.COMPLETE, (a) => ({
    argv: [
      ...job(a),
      a.workerId,
      a.now,
      a.kind,
      a.status,
      flag(a.output !== undefined),
      a.output ?? '',
      flag(a.error !== undefined),
      a.error ?? '',
      flag(a.stopPod),
    ],
  })),
  /** missing, the terminal status it had, or the status it was cancelled from. */
  cancel: defineLuaScript<JobRef & { now: number }, string>(lua.CANCEL, (a) => ({ argv: [...job(a), a.now] })),
  /** missing, queued, or the status it has. */
  retry: defineLuaScript<JobRef & { now: number }, string>(lua.RETRY, (a) => ({ argv: [...job(a), a.now] })),
  /** missing or ok. */
  setTtl: defineLuaScript<JobRef & { ttlMs: number }, string>(lua.SET_TTL, (a) => ({ argv: [...job(a), a.ttlMs] })),
  /** 1 when it marked the job's endpoint watched for `ttlMs`, 0 when the job is finished or missing. */
  watch: defineLuaScript<JobRef & { ttlMs: number }, number>(running.WATCH, (a) => ({ argv: [...job(a), a.ttlMs] })),
  /** missing, ignored or ok. */
  append: defineLuaScript<JobRef & { workerId: string; chunks: string[] }, string>(running.APPEND_STREAM, (a) => ({
    argv: [...job(a), a.workerId, ...a.chunks],
  })),
  /** `[status, chunks]`, or null when the job is missing. */
  drain: defineLuaScript<JobRef, [string, string[]] | null>(running.DRAIN_STREAM, (a) => ({ argv: job(a) })),
  /** The ids of the jobs the worker must stop. */
  stops: defineLuaScript<WorkerRef, string[]>(running.DRAIN_STOPS, (a) => ({ argv: worker(a) })),
  heartbeat: defineLuaScript<WorkerRef & { now: number }, number>(running.HEARTBEAT, (a) => ({
    argv: [...worker(a), a.now],
  })),
  /** `[cancelled ids, ids of those with a webhook]`. */
  purge: defineLuaScript<Based & { endpointId: string; now: number; ids: string[] }, [string[], string[]]>(
    lua.PURGE,
    (a) => ({ argv: [a.base, a.endpointId, a.now, ...a.ids] }),
  ),
  /** 1 when the entry was removed, 0 when it changed since it was read. */
  outboxAck: defineLuaScript<Based & { member: string; score: string }, number>(lua.OUTBOX_ACK, (a) => ({
    argv: [a.base, a.member, a.score],
  })),
};
