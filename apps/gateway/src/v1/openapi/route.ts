import type { z } from 'zod';

/** A zod schema published under a component name (`#/components/schemas/<name>`). */
export interface NamedSchema {
  name: string;
  schema: z.ZodType;
}

/** Names a zod schema for the OpenAPI document. */
export const named = (name: string, schema: z.ZodType): NamedSchema => ({ name, schema });

/** What a route answers on success. */
export type RouteResponse =
  { kind: 'json'; schema: NamedSchema; list?: boolean } | { kind: 'html' } | { kind: 'openapi' } | { kind: 'empty' };

/** One v1 route as the OpenAPI document describes it; the schemas are the ones that validate the request. */
export interface V1Route {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path under `/v1` with `{param}` placeholders, e.g. `/pods/{podId}`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** Success status. */
  status: number;
  body?: NamedSchema;
  query?: z.ZodObject;
  response: RouteResponse;
  /** Served without an API key. */
  public?: boolean;
}

/** A JSON success response of `schema` (a bare array of it when `list`). */
export const json = (schema: NamedSchema, list = false): RouteResponse => ({ kind: 'json', schema, list });

/** No response body (204). */
export const empty: RouteResponse = { kind: 'empty' };

/**
 * `PATCH /x/{id}` and its `POST /x/{id}/update` synonym. They share one operationId in RunPod's document, which
 * OpenAPI forbids, so the POST form gets a `ViaPost` suffix.
 */
export function updatePair(route: Omit<V1Route, 'method' | 'status'>): V1Route[] {
  return [
    { ...route, method: 'PATCH', status: 200 },
    {
      ...route,
      method: 'POST',
      status: 200,
      path: `${route.path}/update`,
      operationId: `${route.operationId}ViaPost`,
      summary: `${route.summary} (synonym for PATCH)`,
    },
  ];
}
