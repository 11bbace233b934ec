import { randomUUID } from 'node:crypto';
import type { Concurrency, JobHandler, ProtocolUrls, WorkerOptions } from './types';
import { protocolUrlsFor, protocolUrlsFromEnv, WorkerConfigError } from './urls';

/** Everything a running worker needs, with defaults and the environment applied. */
export interface WorkerSettings {
  handler: JobHandler;
  concurrency: Concurrency;
  urls: ProtocolUrls;
  workerId: string;
  token: string;
  pingIntervalMs: number;
  pollTimeoutMs: number;
  returnAggregateStream: boolean;
  signal: AbortSignal;
  log: (message: string) => void;
}

const DEFAULT_PING_INTERVAL_MS = 10_000;
const DEFAULT_POLL_TIMEOUT_MS = 90_000;

function resolveUrls(options: WorkerOptions, env: Record<string, string | undefined>): ProtocolUrls {
  if (options.urls) return options.urls;
  if (options.baseUrl) {
    const endpointId = options.endpointId ?? env.RUNPOD_ENDPOINT_ID;
    if (!endpointId) throw new WorkerConfigError('endpointId (or RUNPOD_ENDPOINT_ID) is required with baseUrl');
    return protocolUrlsFor(options.baseUrl, endpointId);
  }
  const fromEnv = protocolUrlsFromEnv(env);
  if (!fromEnv) throw new WorkerConfigError('give urls, baseUrl + endpointId, or RUNPOD_WEBHOOK_GET_JOB and friends');
  return fromEnv;
}

function positiveMs(value: number | string | undefined, name: string, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const ms = Number(value);
  // Below one second RunPod's SDK would ping in a busy loop; refuse it instead.
  if (!Number.isFinite(ms) || ms < 1000) throw new WorkerConfigError(`${name} must be a number of ms >= 1000`);
  return ms;
}

function checkConcurrency(concurrency: Concurrency): Concurrency {
  if (typeof concurrency === 'number' && (!Number.isInteger(concurrency) || concurrency < 1)) {
    throw new WorkerConfigError('concurrency must be an integer >= 1');
  }
  return concurrency;
}

/** Applies defaults and RunPod's environment contract to {@link WorkerOptions}; throws {@link WorkerConfigError}. */
export function resolveSettings(options: WorkerOptions): WorkerSettings {
  const env = options.env ?? process.env;
  const token = options.token ?? env.RUNPOD_AI_API_KEY;
  if (!token) throw new WorkerConfigError('token (or RUNPOD_AI_API_KEY) is required');
  return {
    handler: options.handler,
    concurrency: checkConcurrency(options.concurrency ?? 1),
    urls: resolveUrls(options, env),
    workerId: options.workerId ?? env.RUNPOD_POD_ID ?? randomUUID(),
    token,
    pingIntervalMs: positiveMs(
      options.pingIntervalMs ?? env.RUNPOD_PING_INTERVAL,
      'pingIntervalMs',
      DEFAULT_PING_INTERVAL_MS,
    ),
    pollTimeoutMs: positiveMs(options.pollTimeoutMs, 'pollTimeoutMs', DEFAULT_POLL_TIMEOUT_MS),
    returnAggregateStream: options.returnAggregateStream ?? false,
    signal: options.signal ?? new AbortController().signal,
    log: options.log ?? ((message) => console.warn(`[worker-sdk] ${message}`)),
  };
}
