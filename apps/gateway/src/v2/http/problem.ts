import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { UnauthorizedError } from '@runplane/contracts';
import { toHttpError } from '@runplane/http';
import type { FastifyReply, FastifyRequest } from '@runplane/http';
import { z } from 'zod';

/** Media type of every v2 error body (RFC 9457). */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** An RFC 9457 problem as RunPod's REST v2 writes it: `errors` names each field that failed. */
export interface Problem {
  title: string;
  status: number;
  detail: string;
  errors?: string[];
}

/** The problem body's schema, as the v2 OpenAPI document publishes it (RunPod's ErrorResponse). */
export const problemSchema = z.object({
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  errors: z.array(z.string()).optional(),
  /** Runplane's extension: the answer's `x-request-id`, to quote when asking about it. */
  requestId: z.string().optional(),
});

/** The standard reason phrase of a status (`Unprocessable Entity`), the problem's title. */
export const problemTitle = (status: number): string => STATUS_CODES[status] ?? 'Error';

/** What a ProblemError carries beyond its status and detail. */
export interface ProblemExtras {
  errors?: string[];
  /** Seconds to wait before retrying (429, 503): sent as `Retry-After`. */
  retryAfterSeconds?: number;
  /** Extra response headers, e.g. `Allow` on a 405. */
  headers?: Record<string, string>;
}

/** An error that is answered as exactly this problem (statuses the domain errors have no code for: 422, 501...). */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly extras: ProblemExtras = {},
  ) {
    super(detail);
    this.name = 'ProblemError';
  }

  get retryAfterSeconds(): number | undefined {
    return this.extras.retryAfterSeconds;
  }
}

/** 422: the body or query parsed but failed validation; `errors` names each field. */
export const unprocessable = (errors: string[]): ProblemError =>
  new ProblemError(422, `Request validation failed: ${errors.join('; ')}`, { errors });

/** A scope refusal of a valid key is a 403 in v2 (v1 and the job API answer it 401). */
function isScopeRefusal(error: unknown): boolean {
  return error instanceof UnauthorizedError && error.message.startsWith('This API key ');
}

/** `name: message` from a domain validation error becomes `$.name: message` in `errors`. */
function fieldErrors(message: string): string[] | undefined {
  const match = /^([A-Za-z][\w.[\]]*): (.+)$/s.exec(message);
  return match ? [`$.${match[1]}: ${match[2]}`] : undefined;
}

/** A thrown value as a v2 problem, or undefined when it is unexpected (then a 500 that reveals nothing). */
export function toProblem(error: unknown): (Problem & ProblemExtras) | undefined {
  if (error instanceof ProblemError) {
    return { title: problemTitle(error.status), status: error.status, detail: error.detail, ...error.extras };
  }
  const view = toHttpError(error);
  if (!view) return undefined;
  const status = isScopeRefusal(error) ? 403 : view.status;
  const errors = view.code === 'VALIDATION_FAILED' ? fieldErrors(view.message) : undefined;
  const retryAfter = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  return {
    title: problemTitle(status),
    status,
    detail: view.message,
    ...(errors ? { errors } : {}),
    ...(typeof retryAfter === 'number' ? { retryAfterSeconds: retryAfter } : {}),
  };
}

/**
 * Writes a problem+json answer. Beside RFC 9457's members it carries `requestId` (an extension member, as v1 errors
 * carry it), the `x-request-id` of the answer.
 */
export function sendProblem(reply: FastifyReply, problem: Problem & ProblemExtras): void {
  const { retryAfterSeconds, headers, ...body } = problem;
  for (const [name, value] of Object.entries(headers ?? {})) void reply.header(name, value);
  if (retryAfterSeconds !== undefined)
    void reply.header('retry-after', String(Math.max(0, Math.ceil(retryAfterSeconds))));
  const wire: Problem & { requestId?: string } = { title: body.title, status: body.status, detail: body.detail };
  if (body.errors) wire.errors = body.errors;
  wire.requestId = reply.request.id;
  void reply.status(problem.status).header('content-type', PROBLEM_CONTENT_TYPE).send(JSON.stringify(wire));
}

/** Answers any thrown value as problem+json: expected errors keep their meaning, others are a 500 with an error id. */
export function answerWithProblem(
  error: unknown,
  { request, reply }: { request: FastifyRequest; reply: FastifyReply },
): void {
  const logger = request.log;
  const problem = toProblem(error);
  if (problem) {
    if (problem.status >= 500 && problem.status !== 501)
      logger.error({ err: error, requestId: request.id }, problem.detail);
    sendProblem(reply, problem);
    return;
  }
  const errorId = randomUUID();
  logger.error({ err: error, errorId, requestId: request.id }, 'unhandled error');
  sendProblem(reply, { title: problemTitle(500), status: 500, detail: `Internal server error (error id ${errorId})` });
}
