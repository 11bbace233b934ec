import type { Random } from './random';
import { BROKEN_BODIES, CONTENT_TYPES, fuzzObject, nestedJson, ODD_QUERY_VALUES, ODD_SEGMENTS } from './values';

/** One route to fuzz: a served route, with the query and body fields known for it (from OpenAPI or schemas). */
export interface FuzzRoute {
  method: string;
  /** In Fastify's syntax: `/v2/:endpointId/status/:jobId`, `*` for a wildcard. */
  path: string;
  query: readonly string[];
  body: readonly string[];
  /** Real ids of this route's path parameters, in place of the context's. */
  ids?: Readonly<Record<string, readonly string[]>>;
}

/** What requests may carry besides fuzz: real ids by path parameter name, and authorization header values. */
export interface FuzzContext {
  ids: Readonly<Record<string, readonly string[]>>;
  authorizations: readonly (string | undefined)[];
  /** Field names to try where a route's own are unknown or as extra fields. */
  fieldPool: readonly string[];
}

/** A request as sent through an HTTP client; `raw` requests are bytes written to a socket as they are. */
export type FuzzRequest =
  | { kind: 'http'; method: string; url: string; headers: Record<string, string>; body?: string }
  | { kind: 'raw'; summary: string; bytes: string };

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const BODILESS = new Set(['GET', 'OPTIONS']);
const WILDCARD_TAILS = [
  '',
  'models',
  'chat/completions',
  'completions',
  'x/'.repeat(60),
  '..%2f..%2f',
  '%00',
  '%E0%A4%A',
];

function fillPath(route: FuzzRoute, random: Random, context: FuzzContext): string {
  return route.path
    .split('/')
    .map((segment) => {
      if (segment === '*') return random.pick(WILDCARD_TAILS);
      if (!segment.startsWith(':')) return segment;
      const real = (route.ids ?? context.ids)[segment.slice(1)] ?? [];
      return real.length > 0 && random.chance(0.6) ? random.pick(real) : random.pick(ODD_SEGMENTS);
    })
    .join('/');
}

function fuzzQuery(route: FuzzRoute, random: Random, context: FuzzContext): string {
  if (random.chance(0.4)) return '';
  const names = [
    ...route.query,
    ...route.query,
    random.pick(context.fieldPool),
    random.pick(['', '%00', 'a'.repeat(300), '__proto__']),
  ];
  const pairs = Array.from(
    { length: 1 + random.below(3) },
    () => `${random.pick(names)}=${random.pick(ODD_QUERY_VALUES)}`,
  );
  return `?${pairs.join('&')}`;
}

function fuzzBody(route: FuzzRoute, random: Random, context: FuzzContext): string {
  const roll = random.next();
  const fields = route.body.length > 0 ? route.body : Array.from({ length: 8 }, () => random.pick(context.fieldPool));
  if (roll < 0.12) return random.pick(BROKEN_BODIES);
  if (roll < 0.17)
    return `{"${random.pick(fields)}":${nestedJson(random.pick([99, 100, 101, 1_000, 10_000, 100_000]))}}`;
  if (roll < 0.2) return '';
  return JSON.stringify(fuzzObject(random, [...fields, random.pick(context.fieldPool)]));
}

/**
 * A malformed request only a socket can carry: over-long request lines and headers, broken HTTP framing. (A body
 * shorter than its declared length is left to the body-timeout tests: it holds its connection for the whole timeout.)
 */
function rawRequest(route: FuzzRoute, random: Random, context: FuzzContext): FuzzRequest {
  const path = fillPath(route, random, context);
  const auth = random.pick(context.authorizations);
  const head = `host: fuzz\r\nconnection: close\r\n${auth ? `authorization: ${auth}\r\n` : ''}`;
  const variants = [
    `${route.method} ${path}/${'a'.repeat(17 * 1024)} HTTP/1.1\r\n${head}\r\n`,
    `${route.method} ${path} HTTP/1.1\r\n${head}x-big: ${'b'.repeat(17 * 1024)}\r\n\r\n`,
    `${route.method} ${path}\u0001 HTTP/1.1\r\n${head}\r\n`,
    `${route.method} ${path} x HTTP/1.1\r\n${head}\r\n`,
    `${route.method} ${path} HTTP/9.9\r\n${head}\r\n`,
    `BREW ${path} HTTP/1.1\r\n${head}\r\n`,
    `${route.method} ${path} HTTP/1.1\r\n${head}bad header\r\n\r\n`,
    `POST ${path} HTTP/1.1\r\n${head}content-type: application/json\r\ncontent-length: -1\r\n\r\n{}`,
    `POST ${path} HTTP/1.1\r\n${head}content-type: application/json\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\n{}`,
    `POST ${path} HTTP/1.1\r\n${head}content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    `POST ${path} HTTP/1.1\r\n${head}content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
  ];
  const bytes = random.pick(variants);
  return { kind: 'raw', summary: JSON.stringify(bytes.slice(0, 160)), bytes };
}

/** One fuzzed request for a route: a wrong method now and then, odd path ids, query values, bodies and content types. */
export function fuzzRequest(route: FuzzRoute, random: Random, context: FuzzContext): FuzzRequest {
  if (random.chance(0.03)) return rawRequest(route, random, context);
  const method = random.chance(0.9) ? route.method : random.pick(METHODS);
  const url = fillPath(route, random, context) + fuzzQuery(route, random, context);
  const headers: Record<string, string> = {};
  const auth = random.pick(context.authorizations);
  if (auth !== undefined) headers.authorization = auth;
  if (random.chance(0.05)) headers['x-request-id'] = random.pick(['fuzz-1', 'bad id!', 'a'.repeat(200), '']);
  // A GET with a body is left out: a server may answer before reading it, and the client's write then races the answer.
  if (BODILESS.has(method)) return { kind: 'http', method, url, headers };
  const contentType = random.pick(CONTENT_TYPES);
  if (contentType !== undefined) headers['content-type'] = contentType;
  return { kind: 'http', method, url, headers, body: fuzzBody(route, random, context) };
}
