/** A job as job-take hands it to a worker: RunPod's `{id, input, ...}` object, extra keys (s3Config, webhook) kept. */
export interface WorkerJob {
  id: string;
  input: Record<string, unknown>;
  [extra: string]: unknown;
}

/** What a handler gets besides the job. */
export interface HandlerContext {
  /** Aborted when the platform asks this worker to stop the job (cancelled, timed out) or the worker shuts down. */
  signal: AbortSignal;
  workerId: string;
  /** Sends a progress update (`status: IN_PROGRESS`); the platform shows it as the job's output until the result. */
  progress(update: unknown): Promise<void>;
}

/**
 * A handler: returns the job's output, or is an async generator whose yields are streamed as chunks.
 * A returned object with an `error` key fails the job with that message; `refresh_worker: true` asks for a recycle.
 */
export type JobHandler = (
  job: WorkerJob,
  context: HandlerContext,
) => Promise<unknown> | AsyncIterable<unknown> | unknown;

/** How many jobs the worker may hold: a number, or RunPod's concurrency modifier `(current) => next`. */
export type Concurrency = number | ((current: number) => number);

/** URL templates of the worker protocol, as the platform injects them (see {@link protocolUrlsFromEnv}). */
export interface ProtocolUrls {
  /** job-take; `$ID` (or `$RUNPOD_POD_ID`) is the worker id. Batch and stop URLs are derived from it. */
  take: string;
  /** job-done; `$RUNPOD_POD_ID` is the worker id, `$ID` the job id. */
  done: string;
  /** job-stream; same placeholders as `done`. */
  stream: string;
  /** ping; `$RUNPOD_POD_ID` (or `$ID`) is the worker id. */
  ping: string;
}

/** Options of {@link runWorker}. Anything not given is read from `env` (RunPod's worker environment). */
export interface WorkerOptions {
  handler: JobHandler;
  concurrency?: Concurrency;
  /** The job API's `/v2` base URL (like RunPod's client `baseUrl`), used with `endpointId` instead of the env URLs. */
  baseUrl?: string;
  endpointId?: string;
  /** Explicit URL templates; wins over `baseUrl` and env. */
  urls?: ProtocolUrls;
  /** Worker id (env RUNPOD_POD_ID, else a random uuid). */
  workerId?: string;
  /** Sent as the raw `Authorization` header (env RUNPOD_AI_API_KEY). */
  token?: string;
  /** Heartbeat interval in ms (env RUNPOD_PING_INTERVAL, default 10000). */
  pingIntervalMs?: number;
  /** Client-side limit of one job-take or job-stop long-poll (default 90000, as RunPod's SDK). */
  pollTimeoutMs?: number;
  /** The final job-done of a generator handler carries every chunk (RunPod's `return_aggregate_stream`). */
  returnAggregateStream?: boolean;
  /** Stops taking jobs; running jobs finish and report, then `runWorker` resolves. */
  signal?: AbortSignal;
  env?: Record<string, string | undefined>;
  /** Where protocol problems are reported (default: console.warn). */
  log?: (message: string) => void;
}
