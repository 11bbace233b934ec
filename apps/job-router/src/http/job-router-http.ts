import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ValidationError } from '@runplane/contracts';
import { jsonDepthError } from '@runplane/http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Transform } from 'node:stream';

/** Body size limits of the job API (bytes). */
export interface BodyLimits {
  run: number;
  runsync: number;
  other: number;
}

/** Injection token for the BodyLimits. */
export const BODY_LIMITS = Symbol('BODY_LIMITS');

// An OpenAI request waits like /runsync and may carry as much (long prompts, inline images).
const RUNSYNC_SIZED = new Set(['runsync', 'job-done', 'job-stream', 'openai']);

function limitFor(request: FastifyRequest, limits: BodyLimits): { bytes: number; what: string } {
  const segments = (request.routeOptions.url ?? '').split('/');
  const operation = segments.find((segment) => segment === 'run' || RUNSYNC_SIZED.has(segment));
  if (operation === 'run') return { bytes: limits.run, what: '/run' };
  if (operation) return { bytes: limits.runsync, what: `/${operation}` };
  return { bytes: limits.other, what: 'this route' };
}

function tooLarge(what: string, bytes: number): ValidationError {
  return new ValidationError(`body: too large, the limit of ${what} is ${bytes} bytes`);
}

/** Counts a streamed body and fails it as soon as it passes the limit (chunked bodies carry no length). */
function capped(what: string, bytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      done(seen > bytes ? tooLarge(what, bytes) : null, chunk);
    },
  });
}

type BodyParser = (request: FastifyRequest, body: string, done: (error: Error | null, value?: unknown) => void) => void;

/**
 * Every body is parsed as JSON whatever its Content-Type (RunPod's worker SDK posts JSON as form-urlencoded), and an
 * empty one is no body, even as application/json: runpod-python's `cancel()` and `purge_queue()` send that header
 * with nothing after it. A body nested deeper than MAX_JSON_DEPTH is refused before it is parsed: the job engine
 * stores inputs and results with `JSON.stringify`, which overflows the stack a few thousand levels down.
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
 * The job API's HTTP rules Fastify is told about once: per-route body limits answered with RunPod's 400 (not 413),
 * and JSON bodies whatever their Content-Type (the worker SDK sends x-www-form-urlencoded), an empty one as none.
 */
export function configureJobRouterHttp(fastify: FastifyInstance, limits: BodyLimits): void {
  const parser = jsonWhateverTheType(fastify);
  for (const type of [...TEXT_TYPES, 'application/json']) {
    if (fastify.hasContentTypeParser(type)) fastify.removeContentTypeParser(type);
  }
  // Also replaces the JSON parser Nest installs, whose wrapper keeps raw bodies (the job API never needs them).
  fastify.addContentTypeParser([...TEXT_TYPES, 'application/json', '*'], { parseAs: 'string' }, parser);
  const byRoute = new Map<string, { bytes: number; what: string }>();
  fastify.addHook('preParsing', (request, _reply, payload, done) => {
    const route = request.routeOptions.url ?? '';
    let limit = byRoute.get(route);
    if (!limit) byRoute.set(route, (limit = limitFor(request, limits)));
    const declared = request.headers['content-length'];
    if (declared === undefined) {
      done(null, payload.pipe(capped(limit.what, limit.bytes)));
      return;
    }
    // Node never reads past a declared length and Fastify fails a shorter body: a declared length needs no counting.
    if (Number(declared) > limit.bytes) done(tooLarge(limit.what, limit.bytes));
    else done(null, payload);
  });
}

/** Applies configureJobRouterHttp while the app initialises, before Fastify is ready. */
@Injectable()
export class JobRouterHttpSetup implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(BODY_LIMITS) private readonly limits: BodyLimits,
  ) {}

  onModuleInit(): void {
    configureJobRouterHttp(this.adapterHost.httpAdapter.getInstance<FastifyInstance>(), this.limits);
  }
}
