import { hostname } from 'node:os';
import { SDK_VERSION } from './transport';

/** A job-done body as RunPod's worker SDK sends it. */
export interface DoneBody {
  output?: unknown;
  error?: string;
  stopPod?: boolean;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `error` must reach the platform as a string: an object there would not fail the job on RunPod. */
export function errorText(error: unknown): string {
  if (typeof error === 'string') return error;
  if (error instanceof Error) return error.message;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/**
 * The job-done body for a handler's return value: an object's `error` and `refresh_worker` keys are taken out
 * (failing the job, asking for a recycle), an empty object output is dropped, anything else is the output.
 */
export function resultBody(value: unknown): DoneBody {
  if (!isPlainObject(value)) return value === undefined ? {} : { output: value };
  const { error, refresh_worker: refreshWorker, ...rest } = value;
  const body: DoneBody = Object.keys(rest).length > 0 ? { output: rest } : {};
  if (error !== undefined && error !== null && error !== false && error !== '') body.error = errorText(error);
  if (refreshWorker === true) body.stopPod = true;
  return body;
}

/** The job-done body for a handler that threw: RunPod's JSON error report, as a string. */
export function exceptionBody(error: unknown, workerId: string): DoneBody {
  const err = error instanceof Error ? error : new Error(errorText(error));
  const report = {
    error_type: err.name,
    error_message: err.message,
    error_traceback: err.stack ?? '',
    hostname: hostname(),
    worker_id: workerId,
    runpod_version: SDK_VERSION,
  };
  return { error: JSON.stringify(report) };
}

/** The job-done body for a generator handler that threw mid-stream. */
export function streamErrorBody(error: unknown): DoneBody {
  const err = error instanceof Error ? error : new Error(errorText(error));
  return { error: `handler: ${err.message} \ntraceback: ${err.stack ?? ''}` };
}

/** A yielded `{error}` (or `{output: {error}}`) ends a streaming job as failed, like RunPod's SDK since 1.7.7. */
export function yieldedError(chunk: unknown): string | undefined {
  if (!isPlainObject(chunk)) return undefined;
  if (chunk.error !== undefined && chunk.error !== null) return errorText(chunk.error);
  const output = chunk.output;
  if (isPlainObject(output) && output.error !== undefined && output.error !== null) return errorText(output.error);
  return undefined;
}

/** True for what an async generator handler returns. */
export function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
