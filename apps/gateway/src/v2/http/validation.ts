import type { PipeTransform } from '@nestjs/common';
import type { z } from 'zod';
import { unprocessable } from './problem';

type Issue = z.core.$ZodIssue;

/** `$`, `$.a.b`, `$.ports[0]`: where an issue is, in the notation of RunPod's v2 validation errors. */
function pointer(path: readonly PropertyKey[]): string {
  return path.reduce<string>((at, key) => (typeof key === 'number' ? `${at}[${key}]` : `${at}.${String(key)}`), '$');
}

/** One issue as RunPod words it: `$: additional properties 'x' not allowed`, `$: missing property 'name'`. */
function describeBodyIssue(issue: Issue): string {
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((key) => `'${key}'`).join(', ');
    return `${pointer(issue.path)}: additional propert${issue.keys.length > 1 ? 'ies' : 'y'} ${keys} not allowed`;
  }
  const last = issue.path[issue.path.length - 1];
  if (issue.code === 'invalid_type' && issue.message.endsWith('received undefined') && last !== undefined) {
    return `${pointer(issue.path.slice(0, -1))}: missing property '${String(last)}'`;
  }
  return `${pointer(issue.path)}: ${issue.message}`;
}

/** A query issue names its parameter: `limit: must be <= 1000`. */
function describeQueryIssue(issue: Issue): string {
  if (issue.code === 'unrecognized_keys') return `unknown query parameters: ${issue.keys.join(', ')}`;
  const name = issue.path.map(String).join('.');
  return name ? `${name}: ${issue.message}` : issue.message;
}

/** Parses a request body; a body that parses as JSON but fails the schema (unknown fields included) is a 422. */
export function parseBody<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value === undefined ? {} : value);
  if (result.success) return result.data;
  throw unprocessable(result.error.issues.map(describeBodyIssue));
}

/** Parses a query; unknown parameters are ignored (as RunPod does) unless the schema is strict. */
export function parseQuery<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  throw unprocessable(result.error.issues.map(describeQueryIssue));
}

/** `@Body(new V2Body(schema))`: a missing body reads as `{}`, failures are 422 problems naming each field. */
export class V2Body<S extends z.ZodType> implements PipeTransform<unknown, z.infer<S>> {
  constructor(readonly schema: S) {}

  transform(value: unknown): z.infer<S> {
    return parseBody(this.schema, value);
  }
}

/** `@Query(new V2Query(schema))`: failures are 422 problems naming each parameter. */
export class V2Query<S extends z.ZodType> implements PipeTransform<unknown, z.infer<S>> {
  constructor(readonly schema: S) {}

  transform(value: unknown): z.infer<S> {
    return parseQuery(this.schema, value);
  }
}
