import { DomainError, ValidationError } from '@runplane/contracts';
import type { FastifyRequest } from 'fastify';

const NUL = '\u0000';

/**
 * Where the first string (key or value) holding a NUL character is, as its keys from the innermost out, or undefined.
 * Every request's params and query pass through here, so nothing is allocated until a NUL is found.
 */
function nulAt(value: unknown): (string | number)[] | undefined {
  if (typeof value === 'string') return value.includes(NUL) ? [] : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const found = nulAt(value[index]);
      if (found) return [...found, index];
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (key.includes(NUL)) return [key];
    const found = nulAt((value as Record<string, unknown>)[key]);
    if (found) return [...found, key];
  }
  return undefined;
}

/** Path of the first string (key or value) holding a NUL character (`input.tags[2]`), or undefined. */
function findNul(value: unknown, whole: string): string | undefined {
  const keys = nulAt(value)?.reverse();
  if (!keys) return undefined;
  if (keys.length === 0) return whole;
  return keys.reduce<string>(
    (path, key) => (typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key),
    '',
  );
}

/**
 * Postgres text cannot hold NUL (U+0000), so no id, name or value of ours ever contains one. Rejecting them
 * once, before any handler, keeps every route from turning them into a database error: in a path id the
 * resource cannot exist (404); in a query or body field it is invalid input (400 naming the field). Bodies are
 * checked unless `checkBody` is false.
 */
export function rejectNulCharacters(request: FastifyRequest, checkBody = true): void {
  if (findNul(request.params, 'params')) throw new DomainError('NOT_FOUND', 'Not found');
  const field = findNul(request.query, 'query') ?? (checkBody ? findNul(request.body, 'body') : undefined);
  if (field) throw new ValidationError(`${field}: must not contain NUL characters`);
}
