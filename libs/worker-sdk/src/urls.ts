import type { ProtocolUrls } from './types';

/** Thrown when the worker cannot be configured (missing URL templates or token). */
export class WorkerConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkerConfigError';
  }
}

/**
 * Reads RunPod's worker URL templates from the environment: RUNPOD_WEBHOOK_GET_JOB, RUNPOD_WEBHOOK_POST_OUTPUT,
 * RUNPOD_WEBHOOK_POST_STREAM (or its alias RUNPOD_WEBHOOK_JOB_STREAM) and RUNPOD_WEBHOOK_PING. Undefined when
 * RUNPOD_WEBHOOK_GET_JOB is absent.
 */
export function protocolUrlsFromEnv(env: Record<string, string | undefined>): ProtocolUrls | undefined {
  const take = env.RUNPOD_WEBHOOK_GET_JOB;
  if (!take) return undefined;
  if (!take.includes('/job-take/')) {
    throw new WorkerConfigError(
      'RUNPOD_WEBHOOK_GET_JOB must contain /job-take/ (batch and stop URLs are derived from it)',
    );
  }
  const done = env.RUNPOD_WEBHOOK_POST_OUTPUT;
  if (!done) throw new WorkerConfigError('RUNPOD_WEBHOOK_POST_OUTPUT is required with RUNPOD_WEBHOOK_GET_JOB');
  const stream =
    env.RUNPOD_WEBHOOK_POST_STREAM ?? env.RUNPOD_WEBHOOK_JOB_STREAM ?? done.replace('/job-done/', '/job-stream/');
  const ping = env.RUNPOD_WEBHOOK_PING ?? take.replace('/job-take/', '/ping/');
  return { take, done, stream, ping };
}

/** The templates the platform injects into its workers, built from the job API's `/v2` base URL. */
export function protocolUrlsFor(baseUrl: string, endpointId: string): ProtocolUrls {
  const root = `${baseUrl.replace(/\/+$/, '')}/${encodeURIComponent(endpointId)}`;
  return {
    take: `${root}/job-take/$RUNPOD_POD_ID`,
    done: `${root}/job-done/$RUNPOD_POD_ID/$ID`,
    stream: `${root}/job-stream/$RUNPOD_POD_ID/$ID`,
    ping: `${root}/ping/$RUNPOD_POD_ID`,
  };
}

/** A worker-scoped template with the worker id filled in (RunPod's SDK accepts `$ID` or `$RUNPOD_POD_ID` here). */
export function fillWorker(template: string, workerId: string): string {
  const id = encodeURIComponent(workerId);
  return template.split('$RUNPOD_POD_ID').join(id).split('$ID').join(id);
}

/** A job-scoped template: `$RUNPOD_POD_ID` → worker id first, then `$ID` → job id. */
export function fillJob(template: string, workerId: string, jobId: string): string {
  return template
    .split('$RUNPOD_POD_ID')
    .join(encodeURIComponent(workerId))
    .split('$ID')
    .join(encodeURIComponent(jobId));
}

/** Appends query parameters the way RunPod's SDK does (`&k=v` after a template's own query), skipping undefined ones. */
export function withQuery(url: string, params: Record<string, string | number | undefined>): string {
  const pairs = Object.entries(params)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  if (pairs.length === 0) return url;
  const separator = !url.includes('?') ? '?' : url.endsWith('?') || url.endsWith('&') ? '' : '&';
  return `${url}${separator}${pairs.join('&')}`;
}

/** Batch-take and stop URLs are the take URL with its route segment swapped, query string kept. */
export function swapRoute(takeUrl: string, route: 'job-take-batch' | 'job-stop'): string {
  return takeUrl.replace('/job-take/', `/${route}/`);
}
