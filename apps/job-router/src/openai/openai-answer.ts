import type { JobRecord } from '@runplane/jobs';

/**
 * OpenAI's error shape. A job that ends other than COMPLETED is answered with it (HTTP 500, or as the last event
 * of a stream already under way), since OpenAI clients read `error.message`; a worker that reported an OpenAI
 * error object (worker-vllm does) has its message, type and code passed through.
 */
export interface OpenAiErrorBody {
  error: { message: string; type: string; code: string | null };
}

const DONE_EVENT = 'data: [DONE]\n\n';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The worker's error: an OpenAI error object or an exception report (as JSON text, how worker SDKs send them), or plain text. */
function workerError(text: string): OpenAiErrorBody['error'] {
  try {
    const parsed: unknown = JSON.parse(text);
    const inner = isPlainObject(parsed) && isPlainObject(parsed.error) ? parsed.error : parsed;
    if (isPlainObject(inner) && typeof inner.message === 'string') {
      return {
        message: inner.message,
        type: typeof inner.type === 'string' ? inner.type : 'worker_error',
        code: typeof inner.code === 'string' ? inner.code : null,
      };
    }
    // A worker SDK's report of a handler exception (`error_type`, `error_message`, traceback...).
    if (isPlainObject(inner) && typeof inner.error_message === 'string') {
      return { message: inner.error_message, type: 'worker_error', code: null };
    }
  } catch {
    // Not JSON: the text is the message.
  }
  return { message: text, type: 'worker_error', code: null };
}

/** The OpenAI error body of a job that ended FAILED, TIMED_OUT or CANCELLED. */
export function jobErrorBody(record: JobRecord): OpenAiErrorBody {
  switch (record.status) {
    case 'TIMED_OUT':
      return { error: { message: `Job ${record.id} timed out`, type: 'timeout', code: 'job_timed_out' } };
    case 'CANCELLED':
      return { error: { message: `Job ${record.id} was cancelled`, type: 'cancelled', code: 'job_cancelled' } };
    default:
      return { error: workerError(record.error ?? `Job ${record.id} failed`) };
  }
}

/**
 * The HTTP status of a job that ended without completing. A failed or timed-out job is the server side's failure
 * (500). A cancelled job was stopped by its owner (`/cancel`, `/purge-queue`): 409, and not to be retried, since
 * OpenAI's clients retry a 5xx by sending the request again, which would undo the cancel with a new job.
 */
export function jobErrorStatus(record: JobRecord): { status: 409 | 500; retry: boolean } {
  return record.status === 'CANCELLED' ? { status: 409, retry: false } : { status: 500, retry: true };
}

/** The error event ending a stream whose job failed, or that could not be followed to its end. */
export function errorEvent(body: OpenAiErrorBody): string {
  return `data: ${JSON.stringify(body)}\n\n`;
}

/** No output, or an empty list: what a generator worker that does not aggregate its yields reports. */
export function isEmptyOutput(output: unknown): boolean {
  return output === undefined || (Array.isArray(output) && output.length === 0);
}

/**
 * The JSON answer of a completed non-stream job. A generator worker's output is the list of what it yielded
 * (`return_aggregate_stream`), or nothing, when its one yield is only in the stream chunks: a single item is
 * that item (the OpenAI JSON). A plain handler's output is answered as it is.
 */
export function completedBody(output: unknown, chunks: unknown[]): unknown {
  if (isEmptyOutput(output) && chunks.length > 0) return chunks.length === 1 ? chunks[0] : chunks;
  if (Array.isArray(output) && output.length === 1) return output[0];
  return output ?? null;
}

/** One stream chunk as SSE text: raw text (a vLLM worker yields SSE lines) as it is, anything else as one event. */
export function sseText(chunk: unknown): { text: string; raw: boolean } {
  if (typeof chunk === 'string') return { text: chunk, raw: true };
  return { text: `data: ${JSON.stringify(chunk)}\n\n`, raw: false };
}

/** Ends a stream of JSON events the way OpenAI does; raw SSE from a worker carries its own `[DONE]`. */
export function doneEvent(): string {
  return DONE_EVENT;
}

/** A stream request answered by a job that completed without streaming (a plain handler): its output as events. */
export function completedEvents(output: unknown): string[] {
  const body = completedBody(output, []);
  const events = (Array.isArray(body) ? body : [body]).map(sseText);
  const texts = events.map((event) => event.text);
  return events.some((event) => !event.raw) ? [...texts, DONE_EVENT] : texts;
}
