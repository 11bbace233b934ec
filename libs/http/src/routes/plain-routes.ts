import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { withIncomingSpan } from '@runplane/observability';
import type { z } from 'zod';
import { toHttpError } from '../errors/http-error';
import { parseInput } from '../validation/zod.pipe';

/**
 * One request pipeline for an API's routes, served by Fastify directly: Nest's per-request machinery (guards,
 * interceptors, pipes, RxJS) costs more than the work of a busy route. Every route goes through the same steps in
 * the same order: its app's guards authenticate the caller for what the route does, then count the request against
 * its limits; the query and the body are parsed with the route's schemas; the handler runs; what the limits held is
 * given back. Whatever a step throws is answered by the app's one error handler (ApiExceptionFilter, in the API's
 * error shape), and the app-wide hooks (request id, NUL guard, body limits, metrics) run as for any route. Each
 * request runs in a server span of its caller's trace (W3C `traceparent`), so the spans of its work join it.
 */

/** An HTTP method a plain route answers. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Gives back what a request held while it ran (e.g. a concurrency slot). */
export type Release = () => Promise<void>;

/** What a handler gets: the caller the guards admitted, the path parameters, and the parsed query and body. */
export interface RouteContext<Caller, Query, Body> {
  readonly caller: Caller;
  readonly params: Readonly<Record<string, string | undefined>>;
  readonly query: Query;
  readonly body: Body;
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
}

/** One route, declared: where it is, what the guards check, its schemas and what it does. */
export interface RouteSpec<Policy, Caller, Query, Body> {
  method: HttpMethod;
  url: string;
  /** What the guards check for this route (a function when it depends on the request, e.g. on a query value). */
  policy: Policy | ((request: FastifyRequest) => Policy);
  /** Schema of the query string (a missing one parses as `{}`); without it the handler's `query` is undefined. */
  query?: z.ZodType<Query>;
  /** Schema of the body (a missing one parses as `{}`); without it the handler's `body` is undefined. */
  body?: z.ZodType<Body>;
  /** Resolves to the answer (sent as JSON with 200), or sends it itself through `reply` and resolves to that. */
  handle(context: RouteContext<Caller, Query, Body>): Promise<unknown>;
}

/** A declared route, its schemas bound, ready for {@link serveRoutes}. */
export interface PlainRoute<Policy, Caller> {
  readonly method: HttpMethod;
  readonly url: string;
  readonly policyOf: (request: FastifyRequest) => Policy;
  readonly run: (caller: Caller, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
}

/** The steps an app runs before every handler of a group of routes: who calls, and what the call counts against. */
export interface RouteGuards<Policy, Caller> {
  /** The caller, authenticated and allowed for what the route does; throws the API's 401 (or 404) otherwise. */
  authenticate(request: FastifyRequest, policy: Policy): Promise<Caller>;
  /** Counts an admitted request against its limits; the release of what it holds, or undefined when nothing is. */
  limit?(caller: Caller, request: FastifyRequest, policy: Policy): Promise<Release | undefined>;
}

/** Routes and the guards every one of them goes through. */
export interface RouteGroup<Policy, Caller> {
  readonly guards: RouteGuards<Policy, Caller>;
  readonly routes: readonly PlainRoute<Policy, Caller>[];
}

function fixedPolicy<Policy>(
  policy: Policy | ((request: FastifyRequest) => Policy),
): (request: FastifyRequest) => Policy {
  return typeof policy === 'function' ? (policy as (request: FastifyRequest) => Policy) : () => policy;
}

/**
 * The route declarer of one group of routes, typed by what its guards check and admit: `const route =
 * routeDeclarer<ClientPolicy, Principal>()`, then `route({method, url, policy, query, body, handle})` for each.
 */
export function routeDeclarer<Policy, Caller>() {
  return <Query = undefined, Body = undefined>(
    spec: RouteSpec<Policy, Caller, Query, Body>,
  ): PlainRoute<Policy, Caller> => {
    const { query, body, handle } = spec;
    return {
      method: spec.method,
      url: spec.url,
      policyOf: fixedPolicy(spec.policy),
      // Async, so input that fails to parse rejects the run rather than throwing from it.
      run: async (caller, request, reply) =>
        handle({
          caller,
          params: request.params as Record<string, string | undefined>,
          query: (query ? parseInput(query, request.query ?? {}) : undefined) as Query,
          body: (body ? parseInput(body, request.body ?? {}) : undefined) as Body,
          request,
          reply,
        }),
    };
  };
}

async function admitAndRun<Policy, Caller>(
  guards: RouteGuards<Policy, Caller>,
  route: PlainRoute<Policy, Caller>,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown> {
  const policy = route.policyOf(request);
  const caller = await guards.authenticate(request, policy);
  const release = guards.limit ? await guards.limit(caller, request, policy) : undefined;
  if (!release) return route.run(caller, request, reply);
  // Given back before the answer is written, so the caller's next request finds what this one held freed. Chained
  // rather than awaited: a long-poll parked in the route keeps no suspended frame of this function.
  return route.run(caller, request, reply).finally(() => void release().catch(() => undefined));
}

/** Whether an error a route threw answers 5xx (the server's failure), not 4xx (the caller's), for its span. */
function isServerError(error: unknown): boolean {
  return (toHttpError(error)?.status ?? 500) >= 500;
}

/** Serves a group's routes on `fastify`, each through its guards (see the pipeline above); before Fastify is ready. */
export function serveRoutes<Policy, Caller>(
  fastify: FastifyInstance,
  { guards, routes }: RouteGroup<Policy, Caller>,
): void {
  for (const route of routes) {
    fastify.route({
      method: route.method,
      url: route.url,
      // A server span per request, continuing the caller's W3C trace context (a client's or a worker's traceparent).
      handler: (request, reply) =>
        withIncomingSpan(
          request.headers,
          `${route.method} ${route.url}`,
          () => admitAndRun(guards, route, request, reply),
          {
            attributes: { 'http.route': route.url },
            failure: isServerError,
          },
        ),
    });
  }
}
