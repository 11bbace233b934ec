import { DomainError, ValidationError } from '@runplane/contracts';
import type { FastifyRequest } from 'fastify';

const NUL = '\u0000';

/** Path of the first string (key or value) holding a NUL character, or undefined. */
function findNul(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes(NUL) ? path || 'body' : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, child] of Object.entries(value)) {
    const childPath = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
    if (key.includes(NUL)) return childPath;
    const found = findNul(child, childPath);
    if (found) return found;
  }
  return undefined;
}

/**
 * Postgres text cannot hold NUL (U+0000), so no id, name or value of ours ever contains one. Rejecting them
 * once, before any handler, keeps every route from turning them into a database error: in a path id the
 * resource cannot exist (404); in a query or body field it is invalid input (400 naming the field). Bodies are
 * checked unless `checkBody` is false.
 */
export function rejectNulCharacters(request: FastifyRequest, checkBody = true): void {
  if (findNul(request.params, '')) throw new DomainError('NOT_FOUND', 'Not found');
  const field = findNul(request.query, '') ?? (checkBody ? findNul(request.body, '') : undefined);
  if (field) throw new ValidationError(`${field}: must not contain NUL characters`);
}
