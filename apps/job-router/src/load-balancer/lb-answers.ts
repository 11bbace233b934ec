import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import { errorBody, toHttpError } from '@runplane/http';

/** A load-balancing request the job-router answers itself, in the job API's `{error}` shape with a code. */
export class LbAnswer extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(String(body['error'] ?? status));
  }
}

function retryAfterOf(error: unknown): Record<string, string> {
  if (typeof error !== 'object' || error === null || !('retryAfterSeconds' in error)) return {};
  const seconds = (error as { retryAfterSeconds: unknown }).retryAfterSeconds;
  return typeof seconds === 'number' && Number.isFinite(seconds) ? { 'retry-after': String(seconds) } : {};
}

/**
 * The answer to a thrown value: an {@link LbAnswer} as it is, a domain error (401, 404, 413, 429) in the job API's
 * shape, anything else a 500 that hides its cause (the caller logs it).
 */
export function answerOf(error: unknown, requestId: string): LbAnswer {
  if (error instanceof LbAnswer) return new LbAnswer(error.status, { ...error.body, requestId }, error.headers);
  const view = toHttpError(error);
  if (view) return new LbAnswer(view.status, errorBody('job', view.message, view.code, requestId), retryAfterOf(error));
  return new LbAnswer(500, errorBody('job', 'Internal server error', 'INTERNAL', requestId));
}

/** Writes an answer on a response nothing was written to yet; a response already started is cut off instead. */
export function writeAnswer(response: ServerResponse, answer: LbAnswer): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const text = JSON.stringify(answer.body);
  response.writeHead(answer.status, {
    ...answer.headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

/** Answers a refused upgrade on its raw socket and closes it. */
export function writeUpgradeAnswer(socket: Duplex, answer: LbAnswer): void {
  if (socket.destroyed) return;
  const text = JSON.stringify(answer.body);
  const headers = {
    ...answer.headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    connection: 'close',
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}\r\n${head.join('')}\r\n${text}`);
}
