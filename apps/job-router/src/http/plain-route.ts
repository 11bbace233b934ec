import { closingSignal } from '@runplane/http';
import type { FastifyReply } from 'fastify';

/**
 * Helpers of the job-router's plain Fastify routes. The busiest routes (submission, status and the whole worker
 * protocol) are served by Fastify directly, without Nest's per-request pipeline (guards, interceptors, pipes,
 * RxJS), which cost more than the work itself. They use the same rules as the Nest routes (authorizeApiKey,
 * WorkerAuthenticator, EndpointLimits, which finds the key's own endpoint before JobRateLimiter counts anything, and
 * parseInput) and the app-wide hooks and error handler (request id, NUL guard, body limits, metrics, the API's error
 * shape).
 */

/** Path parameters of the job API's routes. */
export interface JobRouteParams {
  endpointId: string;
  workerId?: string;
  jobId?: string;
}

/** Answers 204 with no body (an empty long-poll). */
export function noContent(reply: FastifyReply): FastifyReply {
  return reply.code(204).send();
}

/**
 * Aborts when the caller hangs up before its long-poll is answered, so the engine stops holding a job for it, and when
 * the service starts closing, so the long-poll answers (empty) at once instead of holding the shutdown.
 */
export function disconnectSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const closing = closingSignal(reply.server.server);
  const onClosing = (): void => controller.abort();
  if (closing.aborted) controller.abort();
  else closing.addEventListener('abort', onClosing, { once: true });
  reply.raw.once('close', () => {
    closing.removeEventListener('abort', onClosing);
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}
