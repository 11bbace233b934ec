import type { z } from 'zod';

/** A zod schema published under a component name (`#/components/schemas/<name>`). */
export interface NamedSchema {
  name: string;
  schema: z.ZodType;
}

/** Names a zod schema for the OpenAPI document. */
export const named = (name: string, schema: z.ZodType): NamedSchema => ({ name, schema });

/** What a v2 route answers on success. */
export type V2RouteResponse =
  | { kind: 'json'; schema: NamedSchema }
  | { kind: 'empty' }
  | { kind: 'openapi' }
  | { kind: 'sse'; description: string };

/** One v2 route as the OpenAPI document describes it; the schemas are the ones that validate the request. */
export interface V2Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Full path with `{param}` placeholders, e.g. `/v2/templates/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** Success status: 200, 201 on create, 204 on delete. */
  status: number;
  body?: NamedSchema;
  query?: z.ZodObject;
  /** Request headers the route reads (e.g. `Last-Event-ID`), as string parameters. */
  headers?: string[];
  response: V2RouteResponse;
  /** Served without an API key. */
  public?: boolean;
}

/** A JSON success response of `schema`. */
export const json = (schema: NamedSchema): V2RouteResponse => ({ kind: 'json', schema });

/** No response body (204). */
export const empty: V2RouteResponse = { kind: 'empty' };
