import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { EdgeErrorWriter, FastifyInstance } from '@runplane/http';
import { PROBLEM_CONTENT_TYPE, problemTitle } from './problem';

/** A request URL on the management API v2 (`/v2`, `/v2/...`, `/v2?...`). */
export const V2_PATH = /^\/v2(?:[/?]|$)/;

/** A v1-shaped error body (`{"message", "code", "requestId"}`), or undefined. */
function v1Error(payload: unknown): { message: string; requestId?: unknown } | undefined {
  if (typeof payload !== 'string' || !payload.startsWith('{')) return undefined;
  try {
    const body = JSON.parse(payload) as { message?: unknown; title?: unknown; requestId?: unknown };
    return typeof body.message === 'string' && body.title === undefined
      ? { message: body.message, requestId: body.requestId }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Errors Fastify raises before a v2 route's own filter can run (a malformed JSON body, a body over the limit, an
 * unsupported media type, a URL that is not valid percent-encoding) are answered by the gateway's v1 error handler;
 * this rewrites such an answer on a `/v2` path as problem+json, so every v2 error has the one shape.
 */
@Injectable()
export class V2EdgeProblems implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onSend', (request, reply, payload, done) => {
      const contentType = String(reply.getHeader('content-type') ?? '');
      if (reply.statusCode < 400 || !V2_PATH.test(request.url) || !contentType.startsWith('application/json')) {
        return done(null, payload);
      }
      const error = v1Error(payload);
      if (error === undefined) return done(null, payload);
      void reply.header('content-type', `${PROBLEM_CONTENT_TYPE}; charset=utf-8`);
      const status = reply.statusCode;
      const problem = { title: problemTitle(status), status, detail: error.message, requestId: error.requestId };
      return done(null, JSON.stringify(problem));
    });
  }
}

/**
 * The errors answered before Fastify routes a request (a URL that is not valid percent-encoding, a path parameter over
 * 100 characters, a request line and headers over 16 KB, unparsable HTTP once its request line was read): on a `/v2`
 * path as problem+json, elsewhere in the gateway's v1 shape.
 */
export const v2EdgeErrors: EdgeErrorWriter = (path, error) => {
  if (!V2_PATH.test(path)) return undefined;
  const { status, message, requestId } = error;
  const problem = { title: problemTitle(status), status, detail: message, requestId };
  return { contentType: `${PROBLEM_CONTENT_TYPE}; charset=utf-8`, body: JSON.stringify(problem) };
};
