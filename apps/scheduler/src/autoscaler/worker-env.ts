/** Where a worker reaches the job API, and how often it pings. */
export interface WorkerEnvOptions {
  /** Job-router base URL, e.g. http://127.0.0.1:8081 (no /v2). */
  jobApiUrl: string;
  endpointId: string;
  workerId: string;
  /** The worker's GPU type id (RunPod puts it in the URLs' `gpu` parameter); null for CPU workers. */
  gpuTypeId: string | null;
  token: string;
  pingIntervalMs: number;
}

/**
 * The environment RunPod's worker SDKs read (see the worker protocol notes): URL templates that already contain `?`
 * and `/job-take/`, with the worker id filled in, so `$ID` is left for the SDK to replace (the worker id in job-take
 * and ping, the job id in job-done and job-stream). The token is sent as the raw Authorization header.
 */
export function workerEnv(options: WorkerEnvOptions): Record<string, string> {
  const root = `${options.jobApiUrl.replace(/\/+$/, '')}/v2/${encodeURIComponent(options.endpointId)}`;
  const worker = encodeURIComponent(options.workerId);
  const query = `?gpu=${encodeURIComponent(options.gpuTypeId ?? 'CPU').replace(/%20/g, '+')}`;
  const stream = `${root}/job-stream/${worker}/$ID${query}`;
  return {
    RUNPOD_WEBHOOK_GET_JOB: `${root}/job-take/${worker}${query}`,
    RUNPOD_WEBHOOK_POST_OUTPUT: `${root}/job-done/${worker}/$ID${query}`,
    RUNPOD_WEBHOOK_POST_STREAM: stream,
    RUNPOD_WEBHOOK_JOB_STREAM: stream,
    RUNPOD_WEBHOOK_PING: `${root}/ping/${worker}${query}`,
    RUNPOD_PING_INTERVAL: String(options.pingIntervalMs),
    RUNPOD_AI_API_KEY: options.token,
    RUNPOD_POD_ID: options.workerId,
    RUNPOD_POD_HOSTNAME: options.workerId,
    RUNPOD_ENDPOINT_ID: options.endpointId,
    RUNPOD_SKIP_AUTO_SYSTEM_CHECKS: 'true',
    RUNPOD_SKIP_GPU_CHECK: 'true',
  };
}
