import type { EndpointHealth, EndpointMetrics, Principal, RunJobInput } from '@runplane/contracts';
import {
  type JobEngine,
  type JobRecord,
  type JobStatus,
  type LiveWorkers,
  resolveJobPolicy,
  type StreamRead,
  syncRetentionMs,
  TERMINAL_STATUSES,
} from '@runplane/jobs';
import type { EndpointDirectory } from './endpoint-directory';

/** Idle and running workers of an endpoint, from their heartbeats. */
export interface WorkerStats {
  workers(endpointId: string): Promise<LiveWorkers>;
}

/**
 * Workers the scheduler knows but that are not taking jobs: starting (initializing), held back because there is no
 * capacity (throttled) or crash-looping (unhealthy). Published by the scheduler's autoscaler.
 */
export interface SchedulerWorkerStates {
  counts(endpointId: string): Promise<{ initializing: number; throttled: number; unhealthy: number }>;
}

/** The engine job-router serves: the JobEngine contract plus heartbeat-based worker counts. */
export type JobRouterEngine = JobEngine & WorkerStats;

/** `{id, status}`: the answer of /run, /cancel, /retry and of an unfinished /runsync. */
export interface JobRef {
  id: string;
  status: JobStatus;
}

/** Options of a submission beyond its body. */
export interface SubmitOptions {
  sync: boolean;
  idempotencyKey?: string;
  /** How long the finished job stays readable (the engine's default when absent). */
  retentionMs?: number;
}

function ref(record: JobRecord): JobRef {
  return { id: record.id, status: record.status };
}

/**
 * Everything of the body but `input` and `policy` goes to the worker as it came, `webhook` included: RunPod's worker
 * SDK hands the job object to the handler as it is.
 */
function extraKeys(body: RunJobInput): Record<string, unknown> {
  const { input: _input, policy: _policy, ...extra } = body;
  return extra;
}

/** The client half of the job API: endpoint ownership, policy defaults, then one engine call. */
export class JobApiService {
  constructor(
    private readonly engine: JobRouterEngine,
    private readonly endpoints: EndpointDirectory,
    private readonly schedulerStates: SchedulerWorkerStates,
    /** Aborts when the service starts closing: /runsync, /status-sync and /stream then answer what they have at once. */
    private readonly closing?: AbortSignal,
  ) {}

  /** Submits a job; /run answers `{id, status}`. */
  async submit(
    principal: Principal,
    endpointId: string,
    body: RunJobInput,
    options: SubmitOptions,
  ): Promise<JobRecord> {
    const endpoint = await this.endpoints.require(principal, endpointId);
    return this.engine.submit({
      endpointId,
      accountId: endpoint.accountId,
      input: body.input,
      extra: extraKeys(body),
      webhook: body.webhook,
      // The job's own executionTimeout, else the endpoint's; ttl 24 h by default.
      policy: resolveJobPolicy(body.policy, endpoint.executionTimeoutMs),
      sync: options.sync,
      idempotencyKey: options.idempotencyKey,
      retentionMs: options.retentionMs,
    });
  }

  async run(principal: Principal, endpointId: string, body: RunJobInput, idempotencyKey?: string): Promise<JobRef> {
    return ref(await this.submit(principal, endpointId, body, { sync: false, idempotencyKey }));
  }

  /** The finished record, or `{id, status}` when `waitMs` elapses first. */
  async runSync(
    principal: Principal,
    endpointId: string,
    body: RunJobInput,
    waitMs: number,
  ): Promise<JobRecord | JobRef> {
    // RunPod keeps a /runsync result 1 min, longer (up to 5 min) when the caller waits longer.
    const submitted = await this.submit(principal, endpointId, body, {
      sync: true,
      retentionMs: syncRetentionMs(waitMs),
    });
    return this.finishedOrRef(await this.engine.waitFor(endpointId, submitted.id, waitMs, this.closing));
  }

  async status(principal: Principal, endpointId: string, jobId: string, ttlMs?: number): Promise<JobRecord> {
    await this.endpoints.require(principal, endpointId);
    return ttlMs === undefined ? this.engine.get(endpointId, jobId) : this.engine.setTtl(endpointId, jobId, ttlMs);
  }

  async statusSync(principal: Principal, endpointId: string, jobId: string, waitMs: number): Promise<JobRecord> {
    await this.endpoints.require(principal, endpointId);
    return this.engine.waitFor(endpointId, jobId, waitMs, this.closing);
  }

  async stream(principal: Principal, endpointId: string, jobId: string, waitMs: number): Promise<StreamRead> {
    await this.endpoints.require(principal, endpointId);
    const read = await this.engine.readStream(endpointId, jobId, waitMs, this.closing);
    // RunPod's clients index `stream` unconditionally: it is always an array.
    return { status: read.status, stream: Array.isArray(read.stream) ? read.stream : [] };
  }

  async cancel(principal: Principal, endpointId: string, jobId: string): Promise<JobRef> {
    await this.endpoints.require(principal, endpointId);
    return ref(await this.engine.cancel(endpointId, jobId));
  }

  async retry(principal: Principal, endpointId: string, jobId: string): Promise<JobRef> {
    await this.endpoints.require(principal, endpointId);
    return ref(await this.engine.retry(endpointId, jobId));
  }

  async purgeQueue(principal: Principal, endpointId: string): Promise<{ removed: number; status: 'completed' }> {
    await this.endpoints.require(principal, endpointId);
    return { removed: await this.engine.purgeQueue(endpointId), status: 'completed' };
  }

  async health(principal: Principal, endpointId: string): Promise<EndpointHealth> {
    await this.endpoints.require(principal, endpointId);
    const [jobs, { workers }] = await Promise.all([this.engine.counts(endpointId), this.workerStates(endpointId)]);
    return { jobs, workers };
  }

  /** /metrics: the ids of the workers taking jobs, and the /health worker counts with their number as `ready`. */
  async metrics(principal: Principal, endpointId: string): Promise<EndpointMetrics> {
    await this.endpoints.require(principal, endpointId);
    const { ready, workers } = await this.workerStates(endpointId);
    return { readyWorkers: ready, workers: { ready: ready.length, ...workers } };
  }

  async requests(principal: Principal, endpointId: string, limit: number): Promise<JobRecord[]> {
    await this.endpoints.require(principal, endpointId);
    return this.engine.recent(endpointId, limit);
  }

  /**
   * idle / running: what workers report by heartbeat (`ready`: their ids); the rest: what the scheduler sees of
   * workers not serving yet.
   */
  private async workerStates(endpointId: string): Promise<{ ready: string[]; workers: EndpointHealth['workers'] }> {
    const [live, scheduled] = await Promise.all([
      this.engine.workers(endpointId),
      this.schedulerStates.counts(endpointId),
    ]);
    return {
      ready: [...live.idle, ...live.running],
      workers: { idle: live.idle.length, running: live.running.length, ...scheduled },
    };
  }

  private finishedOrRef(record: JobRecord): JobRecord | JobRef {
    return TERMINAL_STATUSES.includes(record.status) ? record : ref(record);
  }
}
