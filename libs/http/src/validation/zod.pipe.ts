import { type PipeTransform } from '@nestjs/common';
import { ValidationError } from '@runplane/contracts';
import type { z } from 'zod';

type Issue = z.core.$ZodIssue;

function describeIssue(issue: Issue): string {
  const field = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((key) => (field ? `${field}.${key}` : key));
    return `Unknown field${keys.length > 1 ? 's' : ''}: ${keys.join(', ')}`;
  }
  return field ? `${field}: ${issue.message}` : issue.message;
}

/** Parses a value with a zod schema; failures become a ValidationError naming each field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ValidationError(result.error.issues.map(describeIssue).join('; '));
}

/** Nest pipe form of parseInput: `@Body(new ZodPipe(schema))`. A missing body parses as `{}`. */
export class ZodPipe<S extends z.ZodType> implements PipeTransform<unknown, z.infer<S>> {
  constructor(private readonly schema: S) {}

  transform(value: unknown): z.infer<S> {
    return parseInput(this.schema, value ?? {});
  }
}
