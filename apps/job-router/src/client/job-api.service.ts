import {
  type EndpointHealth,
  type EndpointMetrics,
  NotFoundError,
  type Principal,
  type RunJobInput,
  type WaitingReasonDto,
} from '@runplane/contracts';
import {
  type Admission,
  type JobEngine,
  type JobRecord,
  type JobSubmission,
  type JobStatus,
  type LiveWorkers,
  resolveJobPolicy,
  type StreamRead,
  syncRetentionMs,
  TERMINAL_STATUSES,
} from '@runplane/jobs';
import type { Release } from '../limits/job-rate-limiter';
import type { LimitedOperation } from '../limits/limit-table';
import type { PublicJobLedger } from '../public/public-job-ledger';
import type { EndpointDirectory, EndpointSummary } from './endpoint-directory';
import type { LoadBalancerHealth } from './load-balancer-health';

/** Idle and running workers of an endpoint, from their heartbeats. */
export interface WorkerStats {
  workers(endpointId: string): Promise<LiveWorkers>;
}

/**
 * Workers the scheduler knows but that are not taking jobs: starting (initializing), held back because there is no
 * capacity (throttled) or crash-looping (unhealthy). Published by the scheduler's autoscaler.
 */
export interface SchedulerWorkerStates {
  read(endpointId: string): Promise<{
    counts: { initializing: number; throttled: number; unhealthy: number };
    /** Why the endpoint's queued jobs wait (Runplane's `waitingReason`), as the scheduler last published it. */
    waiting: WaitingReasonDto | null;
  }>;
}

/** A job's status; an `IN_QUEUE` one carries Runplane's `waitingReason` when the scheduler published one. */
export type JobStatusView = JobRecord & { waitingReason?: WaitingReasonDto };

/** An endpoint's workers as /health and /metrics count them, and why its queued jobs wait. */
interface WorkerStatesView {
  ready: string[];
  workers: EndpointHealth['workers'];
  waiting: WaitingReasonDto | null;
}

/** The engine job-router serves: the JobEngine contract plus heartbeat-based worker counts. */
export type JobRouterEngine = JobEngine & WorkerStats;

/**
 * The limits of the submitting routes (/run, /runsync), counted by the script that records the job (`admit`: `submit`
 * is called with the admission to record it with), or before it (`acquire`, for a /run with an Idempotency-Key); both
 * reject with RateLimitedError when over a limit. See JobRateLimiter.
 */
export interface SubmissionLimits {
  /** Counts a request before anything else (JobRateLimiter.acquire): the release of its slot. */
  acquire(endpointId: string, operation: LimitedOperation, caller?: string): Promise<Release>;
  admit<T>(
    endpointId: string,
    operation: LimitedOperation,
    caller: string | undefined,
    submit: (admission: Admission | undefined) => Promise<T>,
  ): Promise<{ result: T; release: Release }>;
}

/** `{id, status}`: the answer of /run, /cancel, /retry and of an unfinished /runsync. */
export interface JobRef {
  id: string;
  status: JobStatus;
}

/** What the job API's service works with. */
export interface JobApiPorts {
  engine: JobRouterEngine;
  endpoints: EndpointDirectory;
  schedulerStates: SchedulerWorkerStates;
  /** Who submitted each job of a public model. */
  publicJobs: PublicJobLedger;
  limits: SubmissionLimits;
}

/** How the service runs beyond its ports. */
export interface JobApiOptions {
  /** Aborts when the service starts closing: /runsync, /status-sync and /stream then answer what they have at once. */
  closing?: AbortSignal;
  /** /health of load-balancing endpoints (requests in place of jobs). */
  loadBalancers?: LoadBalancerHealth;
}

/** Options of a submission beyond its body. */
export interface SubmitOptions {
  sync: boolean;
  idempotencyKey?: string;
  /** How long the finished job stays readable (the engine's default when absent). */
  retentionMs?: number;
  /** The route's limits, counted with the submission; its slot is held until the route's answer is ready. */
  limit?: LimitedOperation;
}

/** A submitted job, the endpoint it went to, and the release of the slot its route's limit holds. */
interface Submitted {
  endpoint: EndpointSummary;
  record: JobRecord;
  release: Release;
}

const NOTHING_HELD: Release = async () => undefined;

/** Gives back a route's slot once its answer is ready; a failed give-back leaves the slot to lapse (maxHoldMs). */
function released(release: Release): void {
  void release().catch(() => undefined);
}

/** What `work` resolves to; when it fails, the slot `release` gives back is given back before the failure goes on. */
async function holding<T>(release: Release, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    released(release);
    throw error;
  }
}

function ref(record: JobRecord): JobRef {
  return { id: record.id, status: record.status };
}

/** A record as a public model's caller sees it: never the worker that ran it. */
function callerView(endpoint: EndpointSummary, record: JobRecord): JobRecord {
  if (!endpoint.publicModel) return record;
  const { workerId: _workerId, ...rest } = record;
  return rest;
}

/**
 * Everything of the body but `input` and `policy` goes to the worker as it came, `webhook` included: RunPod's worker
 * SDK hands the job object to the handler as it is.
 */
function extraKeys(body: RunJobInput): Record<string, unknown> {
  const { input: _input, policy: _policy, ...extra } = body;
  return extra;
}

/**
 * The client half of the job API: endpoint ownership, policy defaults, then one engine call. A public model's caller
 * (the path names a model, not one of its endpoints) owns its jobs there: another account's job id is 404, endpoint-
 * wide routes are 404, and records never name the worker.
 */
export class JobApiService {
  private readonly engine: JobRouterEngine;
  private readonly endpoints: EndpointDirectory;
  private readonly schedulerStates: SchedulerWorkerStates;
  private readonly publicJobs: PublicJobLedger;
  private readonly limits: SubmissionLimits;

  constructor(
    ports: JobApiPorts,
    private readonly options: JobApiOptions = {},
  ) {
    ({
      engine: this.engine,
      endpoints: this.endpoints,
      schedulerStates: this.schedulerStates,
      publicJobs: this.publicJobs,
      limits: this.limits,
    } = ports);
  }

  /** Submits a job (its route's limits counted already, or with it as `options.limit` says); its record. */
  async submit(
    principal: Principal,
    endpointId: string,
    body: RunJobInput,
    options: SubmitOptions,
  ): Promise<JobRecord> {
    const { record, release } = await this.submitTo(principal, endpointId, body, options);
    released(release);
    return record;
  }

  /**
   * Submits a job, and says to which endpoint it went. With `options.limit`, the limits are counted by the script
   * that records the job, once the endpoint is known to be the caller's (another account's is 404, nothing counted).
   */
  private async submitTo(
    principal: Principal,
    endpointId: string,
    body: RunJobInput,
    options: SubmitOptions,
  ): Promise<Submitted> {
    const endpoint = await this.endpoints.requireQueue(principal, endpointId);
    const caller = endpoint.publicModel ? principal.accountId : undefined;
    // The job's own executionTimeout, else the endpoint's; ttl 24 h by default.
    const policy = resolveJobPolicy(body.policy, endpoint.executionTimeoutMs);
    const submission = {
      endpointId: endpoint.id,
      accountId: caller ?? endpoint.accountId,
      input: body.input,
      extra: extraKeys(body),
      webhook: body.webhook,
      policy,
      sync: options.sync,
      // On a public model each caller has its own Idempotency-Keys: one never gets another's job back.
      idempotencyKey: caller && options.idempotencyKey ? `${caller}:${options.idempotencyKey}` : options.idempotencyKey,
      retentionMs: options.retentionMs,
    };
    const { result: record, release } = options.limit
      ? await this.countedSubmit(endpoint.id, options.limit, caller, submission)
      : { result: await this.engine.submit(submission), release: NOTHING_HELD };
    if (caller && endpoint.publicModel) {
      const { name: model, pricePerRequest } = endpoint.publicModel;
      const entry = { endpointId: endpoint.id, jobId: record.id, accountId: caller, model, pricePerRequest };
      await holding(release, this.publicJobs.record(entry, policy.ttlMs));
    }
    return { endpoint, record, release };
  }

  /**
   * Submits a job counted against its route's limits: by the script that records it, or, with an Idempotency-Key,
   * before it (a repeat answers the first job without recording one, so no script would count it). The job's record
   * and the release of the request's slot.
   */
  private async countedSubmit(
    endpointId: string,
    operation: LimitedOperation,
    caller: string | undefined,
    submission: JobSubmission,
  ): Promise<{ result: JobRecord; release: Release }> {
    if (submission.idempotencyKey === undefined) {
      return this.limits.admit(endpointId, operation, caller, (admission) =>
        this.engine.submit({ ...submission, admission }),
      );
    }
    const release = await this.limits.acquire(endpointId, operation, caller);
    return { result: await holding(release, this.engine.submit(submission)), release };
  }

  /** /run: `{id, status}`, its slot given back once the job is recorded. */
  async run(principal: Principal, endpointId: string, body: RunJobInput, idempotencyKey?: string): Promise<JobRef> {
    return ref(await this.submit(principal, endpointId, body, { sync: false, idempotencyKey, limit: 'run' }));
  }

  /** The finished record, or `{id, status}` when `waitMs` elapses first. */
  async runSync(
    principal: Principal,
    endpointId: string,
    body: RunJobInput,
    waitMs: number,
  ): Promise<JobRecord | JobRef> {
    // RunPod keeps a /runsync result 1 min, longer (up to 5 min) when the caller waits longer.
    const { endpoint, record, release } = await this.submitTo(principal, endpointId, body, {
      sync: true,
      retentionMs: syncRetentionMs(waitMs),
      limit: 'runsync',
    });
    // The slot is held while the caller waits. Chained, not awaited in a try: a waiting caller keeps no frame here.
    return this.engine
      .waitFor(endpoint.id, record.id, waitMs, this.options.closing)
      .then((finished) => this.finishedOrRef(callerView(endpoint, finished)))
      .finally(() => released(release));
  }

  async status(principal: Principal, endpointId: string, jobId: string, ttlMs?: number): Promise<JobStatusView> {
    const endpoint = await this.jobEndpoint(principal, endpointId, jobId);
    if (ttlMs === undefined) return this.withWaiting(endpoint, await this.engine.get(endpoint.id, jobId));
    const record = await this.engine.setTtl(endpoint.id, jobId, ttlMs);
    if (endpoint.publicModel) await this.publicJobs.extend(endpoint.id, jobId, ttlMs);
    return this.withWaiting(endpoint, record);
  }

  /** The caller's view of a job; while it is queued, with why it waits (its endpoint's reason, not a public model's). */
  private async withWaiting(endpoint: EndpointSummary, record: JobRecord): Promise<JobStatusView> {
    const view = callerView(endpoint, record);
    if (record.status !== 'IN_QUEUE' || endpoint.publicModel) return view;
    const { waiting } = await this.schedulerStates.read(endpoint.id);
    return waiting ? { ...view, waitingReason: waiting } : view;
  }

  /** The job once it finished, or as it is after `waitMs`: still queued, with why it waits, like {@link status}. */
  async statusSync(principal: Principal, endpointId: string, jobId: string, waitMs: number): Promise<JobStatusView> {
    const endpoint = await this.jobEndpoint(principal, endpointId, jobId);
    return this.withWaiting(endpoint, await this.engine.waitFor(endpoint.id, jobId, waitMs, this.options.closing));
  }

  async stream(principal: Principal, endpointId: string, jobId: string, waitMs: number): Promise<StreamRead> {
    const endpoint = await this.jobEndpoint(principal, endpointId, jobId);
    const read = await this.engine.readStream(endpoint.id, jobId, waitMs, this.options.closing);
    // RunPod's clients index `stream` unconditionally: it is always an array.
    return { status: read.status, stream: Array.isArray(read.stream) ? read.stream : [] };
  }

  async cancel(principal: Principal, endpointId: string, jobId: string): Promise<JobRef> {
    const endpoint = await this.jobEndpoint(principal, endpointId, jobId);
    return ref(await this.engine.cancel(endpoint.id, jobId));
  }

  /** Not on a public model: a job is billed once, so a caller submits it again instead. */
  async retry(principal: Principal, endpointId: string, jobId: string): Promise<JobRef> {
    const endpoint = await this.ownedEndpoint(principal, endpointId, { jobs: true });
    return ref(await this.engine.retry(endpoint.id, jobId));
  }

  async purgeQueue(principal: Principal, endpointId: string): Promise<{ removed: number; status: 'completed' }> {
    const endpoint = await this.ownedEndpoint(principal, endpointId, { jobs: true });
    return { removed: await this.engine.purgeQueue(endpoint.id), status: 'completed' };
  }

  async health(principal: Principal, endpointId: string): Promise<EndpointHealth> {
    const { id, type } = await this.ownedEndpoint(principal, endpointId);
    if (type === 'LOAD_BALANCER' && this.options.loadBalancers) return this.options.loadBalancers.health(id);
    const [jobs, { workers, waiting }] = await Promise.all([this.engine.counts(id), this.workerStates(id)]);
    return { jobs, workers, ...(waiting && jobs.inQueue > 0 ? { waitingReason: waiting } : {}) };
  }

  /** /metrics: the ids of the workers taking jobs, and the /health worker counts with their number as `ready`. */
  async metrics(principal: Principal, endpointId: string): Promise<EndpointMetrics> {
    const { id } = await this.ownedEndpoint(principal, endpointId);
    const { ready, workers } = await this.workerStates(id);
    return { readyWorkers: ready, workers: { ready: ready.length, ...workers } };
  }

  async requests(principal: Principal, endpointId: string, limit: number): Promise<JobRecord[]> {
    const { id } = await this.ownedEndpoint(principal, endpointId, { jobs: true });
    return this.engine.recent(id, limit);
  }

  /** The endpoint of a job route; on a public model, NotFoundError unless the principal submitted the job. */
  private async jobEndpoint(principal: Principal, endpointId: string, jobId: string): Promise<EndpointSummary> {
    const endpoint = await this.endpoints.requireQueue(principal, endpointId);
    if (endpoint.publicModel) await this.publicJobs.requireCaller(endpoint.id, jobId, principal.accountId);
    return endpoint;
  }

  /**
   * Routes about the endpoint as a whole (its queue, workers, every job): its owner's only, a public model is 404;
   * those about its jobs (`jobs`) are 409 on a load-balancing endpoint, which has none.
   */
  private async ownedEndpoint(
    principal: Principal,
    endpointId: string,
    { jobs = false } = {},
  ): Promise<EndpointSummary> {
    const endpoint = jobs
      ? await this.endpoints.requireQueue(principal, endpointId)
      : await this.endpoints.require(principal, endpointId);
    if (endpoint.publicModel) throw new NotFoundError('Endpoint');
    return endpoint;
  }

  /**
   * idle / running: what workers report by heartbeat (`ready`: their ids); the rest: what the scheduler sees of
   * workers not serving yet.
   */
  private async workerStates(endpointId: string): Promise<WorkerStatesView> {
    const [live, scheduled] = await Promise.all([
      this.engine.workers(endpointId),
      this.schedulerStates.read(endpointId),
    ]);
    return {
      ready: [...live.idle, ...live.running],
      workers: { idle: live.idle.length, running: live.running.length, ...scheduled.counts },
      waiting: scheduled.waiting,
    };
  }

  private finishedOrRef(record: JobRecord): JobRecord | JobRef {
    return TERMINAL_STATUSES.includes(record.status) ? record : ref(record);
  }
}
