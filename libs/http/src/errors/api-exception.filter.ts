import { randomUUID } from 'node:crypto';
import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import type { Logger } from '@runplane/observability';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorBody, type ErrorStyle } from './error-body';
import { toHttpError } from './http-error';

/** Seconds after which a refused request may be retried, when the error says (e.g. a rate limit). */
function retryAfterOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('retryAfterSeconds' in error)) return undefined;
  const seconds = (error as { retryAfterSeconds: unknown }).retryAfterSeconds;
  return typeof seconds === 'number' && Number.isFinite(seconds) ? seconds : undefined;
}

/** Which API's error shape to write, and where to log what it hides. */
export interface ErrorAnswerer {
  style: ErrorStyle;
  logger: Pick<Logger, 'error'>;
}

/**
 * The one place an API turns a thrown value into a response. Expected errors keep their status and message (and a
 * `Retry-After` when they carry `retryAfterSeconds`); anything else is logged with an error id and answered as a 500
 * that reveals nothing but that id.
 */
export function sendError(
  api: ErrorAnswerer,
  error: unknown,
  { request, reply }: { request: FastifyRequest; reply: FastifyReply },
): void {
  const { style, logger } = api;
  const view = toHttpError(error);
  if (view) {
    if (view.status >= 500) logger.error({ err: error, requestId: request.id }, view.message);
    const retryAfter = retryAfterOf(error);
    if (retryAfter !== undefined) void reply.header('retry-after', String(retryAfter));
    void reply.status(view.status).send(errorBody(style, view.message, view.code, request.id));
    return;
  }
  const errorId = randomUUID();
  logger.error({ err: error, errorId, requestId: request.id }, 'unhandled error');
  const message = `Internal server error (error id ${errorId})`;
  void reply.status(500).send(errorBody(style, message, 'INTERNAL', request.id));
}

/** Nest exception filter that writes every error in one API's shape. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter, ErrorAnswerer {
  constructor(
    readonly style: ErrorStyle,
    readonly logger: Logger,
  ) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendError(this, error, { request: http.getRequest<FastifyRequest>(), reply: http.getResponse<FastifyReply>() });
  }
}
