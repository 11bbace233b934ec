import { randomUuid } from '@runplane/db';
import type { IncomingMessage } from 'node:http';

/** Header carrying the request id in and out of every Runplane service. */
export const REQUEST_ID_HEADER = 'x-request-id';

const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a caller's request id when it is sane (so logs join across services), else makes a new one. */
export function requestIdFor(request: IncomingMessage): string {
  const given = request.headers[REQUEST_ID_HEADER];
  const value = Array.isArray(given) ? given[0] : given;
  return value && ACCEPTABLE_ID.test(value) ? value : randomUuid();
}
