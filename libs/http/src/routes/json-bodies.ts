import { ValidationError } from '@runplane/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Transform } from 'node:stream';
import { jsonDepthError } from '../app/json-depth';

/** The body limit of a route: its size in bytes and how the refusal names the route (e.g. `/run`). */
export interface BodyLimit {
  bytes: number;
  what: string;
}

/** The body limit of each route, by its URL pattern (`''` for a request no route matched). */
export type BodyLimitOf = (routeUrl: string) => BodyLimit;

function tooLarge({ what, bytes }: BodyLimit): ValidationError {
  return new ValidationError(`body: too large, the limit of ${what} is ${bytes} bytes`);
}

/** Counts a streamed body and fails it as soon as it passes the limit (chunked bodies carry no length). */
function capped(limit: BodyLimit): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      done(seen > limit.bytes ? tooLarge(limit) : null, chunk);
    },
  });
}

type BodyParser = (request: FastifyRequest, body: string, done: (error: Error | null, value?: unknown) => void) => void;

/**
 * Every body is parsed as JSON whatever its Content-Type, and an empty one is no body, even as application/json. A
 * body nested deeper than MAX_JSON_DEPTH is refused before it is parsed (JSON.stringify of it would overflow the stack).
 */
function jsonWhateverTheType(fastify: FastifyInstance): BodyParser {
  // Fastify's own JSON parser keeps its prototype-poisoning protection and its error codes.
  const json = fastify.getDefaultJsonParser('error', 'error') as BodyParser;
  return (request, body, done) => {
    if (body.trim() === '') return done(null, undefined);
    const tooDeep = jsonDepthError(body);
    return tooDeep ? done(tooDeep) : json(request, body, done);
  };
}

const TEXT_TYPES = ['text/plain', 'application/x-www-form-urlencoded'];

/**
 * Bodies as RunPod's job API takes them: JSON whatever their Content-Type (RunPod's worker SDK posts JSON as
 * x-www-form-urlencoded), an empty one as none (runpod-python's `cancel()` sends `application/json` with nothing after
 * it), and a limit per route answered with a 400 in the API's shape (RunPod answers 400, not 413). Call before
 * Fastify is ready.
 */
export function acceptJsonBodies(fastify: FastifyInstance, limitOf: BodyLimitOf): void {
  const parser = jsonWhateverTheType(fastify);
  for (const type of [...TEXT_TYPES, 'application/json']) {
    if (fastify.hasContentTypeParser(type)) fastify.removeContentTypeParser(type);
  }
  // Also replaces the JSON parser Nest installs, whose wrapper keeps raw bodies (never needed here).
  fastify.addContentTypeParser([...TEXT_TYPES, 'application/json', '*'], { parseAs: 'string' }, parser);
  const byRoute = new Map<string, BodyLimit>();
  fastify.addHook('preParsing', (request, _reply, payload, done) => {
    const route = request.routeOptions.url ?? '';
    let limit = byRoute.get(route);
    if (!limit) byRoute.set(route, (limit = limitOf(route)));
    const declared = request.headers['content-length'];
    if (declared === undefined) {
      // A request with neither header has no body (a job-take, say): nothing to count.
      done(null, request.headers['transfer-encoding'] === undefined ? payload : payload.pipe(capped(limit)));
      return;
    }
    // Node never reads past a declared length and Fastify fails a shorter body: a declared length needs no counting.
    if (Number(declared) > limit.bytes) done(tooLarge(limit));
    else done(null, payload);
  });
}
