import type { FastifyReply } from 'fastify';
import { abortOnClosing } from '../app/graceful-shutdown';

/** Answers 204 with no body (an empty long-poll). */
export function noContent(reply: FastifyReply): FastifyReply {
  return reply.code(204).send();
}

/** Aborts when the client closes the connection before its answer was written out. */
export function clientGoneSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

/**
 * Aborts when the caller hangs up before its long-poll is answered, so the work held for it stops, and when the
 * service starts closing, so the long-poll answers (empty) at once instead of holding the shutdown.
 */
export function longPollSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const closing = abortOnClosing(reply.server.server, controller);
  reply.raw.once('close', () => {
    closing.release();
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}
