import type { IncomingHttpHeaders } from 'node:http';
import { type Dispatcher, getGlobalDispatcher } from 'undici';

/** A protocol request's answer, read whole: its status, its Content-Type ('' when absent) and its body as text. */
export interface Answer {
  status: number;
  contentType: string;
  body: string;
}

/** One protocol request. */
export interface Exchange {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Longest wait for the answer's headers, then between its body's chunks (ms); undici's defaults when absent. */
  timeoutMs?: number;
  /** Ends the request; it then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** A response header as one string ('' when absent). */
function headerText(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('This operation was aborted');
}

/**
 * The dispatcher's callbacks for one request: its answer read whole, then `settle` called once with it or with the
 * request's error. `signal`, when given, aborts the request, also before it has started.
 */
class WholeAnswer implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private answer: Answer = { status: 0, contentType: '', body: '' };
  private readonly chunks: Buffer[] = [];
  private readonly onAbort = (): void => this.controller?.abort(abortReason(this.signal as AbortSignal));

  constructor(
    private readonly signal: AbortSignal | undefined,
    private readonly settle: (error: Error | null, answer?: Answer) => void,
  ) {
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.signal?.aborted) controller.abort(abortReason(this.signal));
  }

  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: IncomingHttpHeaders): void {
    // Called again after a 1xx informational answer: the last call is the answer's own.
    this.answer = { status, contentType: headerText(headers['content-type']), body: '' };
    this.chunks.length = 0;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    const { chunks } = this;
    this.answer.body = (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString('utf8');
    this.end(null, this.answer);
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.end(error);
  }

  /** Settles the request (a failure to dispatch it among the ways). */
  end(error: Error | null, answer?: Answer): void {
    this.signal?.removeEventListener('abort', this.onAbort);
    this.settle(error, answer);
  }
}

/**
 * Sends one request through undici's global dispatcher (kept-alive connections, and whatever dispatcher the process
 * set, e.g. a proxy) and reads its answer whole. undici's `request()` hands each answer over as a Node stream, and
 * building and reading that stream costs about a third of a small request's client CPU; a protocol worker makes two
 * requests per job, so it takes the answer's bytes from the dispatcher's callbacks instead.
 */
export function exchange(request: Exchange): Promise<Answer> {
  const { signal } = request;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  const timeouts =
    request.timeoutMs === undefined ? {} : { headersTimeout: request.timeoutMs, bodyTimeout: request.timeoutMs };
  return new Promise<Answer>((resolve, reject) => {
    const handler = new WholeAnswer(signal, (error, answer) => (error ? reject(error) : resolve(answer as Answer)));
    try {
      // A URL that does not parse rejects like a request that failed.
      const { origin, pathname, search } = new URL(request.url);
      const { method, headers, body } = request;
      getGlobalDispatcher().dispatch(
        { origin, path: `${pathname}${search}`, method, headers, body, ...timeouts },
        handler,
      );
    } catch (error) {
      handler.end(error as Error);
    }
  });
}
