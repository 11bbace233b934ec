import { type Answer, exchange } from './exchange';
import type { ProtocolUrls, WorkerJob } from './types';
import { fillJob, fillWorker, swapRoute, withQuery } from './urls';

/** Version reported in pings (`runpod_version`) and the User-Agent. */
export const SDK_VERSION = '0.1.0';

/** One job-take answer: the jobs (possibly none) and how long to wait before the next take. */
export interface TakeResult {
  jobs: WorkerJob[];
  backoffMs: number;
}

/** Connection facts every protocol request needs. */
export interface TransportConfig {
  urls: ProtocolUrls;
  workerId: string;
  token: string;
  pollTimeoutMs: number;
  log: (message: string) => void;
}

// RunPod's SDK retries results on 5xx and connection errors (aiohttp_retry, 3 attempts); 4xx is final.
const RESULT_RETRY_DELAYS_MS = [1000, 2000];
const THROTTLED_BACKOFF_MS = 5000;
const ERROR_BACKOFF_MS = 1000;

function isJob(value: unknown): value is WorkerJob {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { id, input } = value as { id?: unknown; input?: unknown };
  return (
    typeof id === 'string' && id.length > 0 && typeof input === 'object' && input !== null && !Array.isArray(input)
  );
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The worker side of the protocol over undici's dispatcher (exchange.ts: kept-alive connections, answers read whole
 * without a stream: a worker makes two requests per job, so the client's own cost matters), with RunPod's headers,
 * retries and response handling.
 */
export class ProtocolTransport {
  private readonly headers: Record<string, string>;
  private readonly takeUrl: string;

  constructor(private readonly config: TransportConfig) {
    this.headers = {
      authorization: config.token,
      'user-agent': `Runplane-Worker-SDK/${SDK_VERSION} Node/${process.versions.node}`,
    };
    this.takeUrl = fillWorker(config.urls.take, config.workerId);
  }

  /** Long-polls for up to `count` jobs (single take for 1, batch take otherwise). */
  async take(count: number, jobInProgress: boolean, signal: AbortSignal): Promise<TakeResult> {
    const url =
      count === 1
        ? withQuery(this.takeUrl, { job_in_progress: jobInProgress ? 1 : 0 })
        : withQuery(swapRoute(this.takeUrl, 'job-take-batch'), {
            batch_size: count,
            job_in_progress: jobInProgress ? 1 : 0,
          });
    const response = await this.get(url, signal);
    if (!response) return { jobs: [], backoffMs: signal.aborted ? 0 : ERROR_BACKOFF_MS };
    if (response.status === 204 || response.status === 400) return { jobs: [], backoffMs: 0 };
    if (response.status === 429) return { jobs: [], backoffMs: THROTTLED_BACKOFF_MS };
    if (response.status !== 200) {
      this.config.log(`job-take failed: HTTP ${response.status} ${response.body.slice(0, 200)}`);
      return { jobs: [], backoffMs: ERROR_BACKOFF_MS };
    }
    return { jobs: this.parseJobs(response), backoffMs: 0 };
  }

  /** Long-polls job-stop; returns the ids of jobs the platform wants stopped. */
  async stopRequests(signal: AbortSignal): Promise<string[]> {
    const response = await this.get(swapRoute(this.takeUrl, 'job-stop'), signal);
    if (!response || response.status !== 200) return [];
    try {
      const body = JSON.parse(response.body) as { jobsToStop?: unknown };
      return Array.isArray(body.jobsToStop) ? body.jobsToStop.filter((id): id is string => typeof id === 'string') : [];
    } catch {
      this.config.log('job-stop: the answer is not JSON');
      return [];
    }
  }

  /** Posts a result (or a progress update) to job-done; retried on 5xx and connection errors only. */
  async done(jobId: string, body: object, isStream: boolean): Promise<boolean> {
    const url = withQuery(fillJob(this.config.urls.done, this.config.workerId, jobId), { isStream: String(isStream) });
    return this.post(url, jobId, body, 'job-done');
  }

  /** Posts one stream chunk to job-stream. */
  async streamChunk(jobId: string, output: unknown): Promise<boolean> {
    const url = withQuery(fillJob(this.config.urls.stream, this.config.workerId, jobId), { isStream: 'false' });
    return this.post(url, jobId, { output }, 'job-stream');
  }

  /** Heartbeat with the ids of the jobs in progress; the answer is ignored. */
  async ping(jobIds: string[], signal: AbortSignal): Promise<void> {
    const url = withQuery(fillWorker(this.config.urls.ping, this.config.workerId), {
      job_id: jobIds.length > 0 ? jobIds.join(',') : undefined,
      runpod_version: SDK_VERSION,
    });
    const response = await this.get(url, signal);
    if (response && response.status >= 400) this.config.log(`ping failed: HTTP ${response.status}`);
  }

  private parseJobs(response: { contentType: string; body: string }): WorkerJob[] {
    if (!response.contentType.includes('application/json') || response.body.length === 0) return [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(response.body);
    } catch {
      this.config.log('job-take: the answer is not JSON');
      return [];
    }
    const candidates = Array.isArray(parsed) ? parsed : [parsed];
    const jobs = candidates.filter(isJob);
    if (jobs.length < candidates.length) this.config.log('Job has missing field(s): id or input.');
    return jobs;
  }

  private async get(url: string, signal: AbortSignal): Promise<Answer | undefined> {
    try {
      return await exchange({
        url,
        method: 'GET',
        headers: this.headers,
        signal,
        timeoutMs: this.config.pollTimeoutMs,
      });
    } catch (error) {
      if (!signal.aborted) this.config.log(`GET ${url} failed: ${(error as Error).message}`);
      return undefined;
    }
  }

  private lost(what: string, jobId: string, failure: string): false {
    this.config.log(`Failed to return job results. | ${what} ${jobId}: ${failure}`);
    return false;
  }

  private async post(url: string, jobId: string, body: object, what: string): Promise<boolean> {
    // RunPod's SDK sends JSON text labelled as a form, and the job id as X-Request-ID; the platform must cope.
    const request = {
      url,
      method: 'POST' as const,
      headers: { ...this.headers, 'content-type': 'application/x-www-form-urlencoded', 'x-request-id': jobId },
      body: JSON.stringify(body),
    };
    for (let attempt = 0; ; attempt += 1) {
      let failure: string;
      try {
        const { status } = await exchange(request);
        if (status >= 200 && status < 300) return true;
        failure = `HTTP ${status}`;
        // 4xx is final, as in RunPod's SDK: the platform refused this result (too large, job gone).
        if (status < 500) return this.lost(what, jobId, failure);
      } catch (error) {
        failure = (error as Error).message;
      }
      const wait = RESULT_RETRY_DELAYS_MS[attempt];
      if (wait === undefined) return this.lost(what, jobId, failure);
      await delay(wait);
    }
  }
}
