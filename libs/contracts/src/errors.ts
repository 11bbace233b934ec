/**
 * Domain error codes shared by every Runplane API. Each API's exception filter maps a code to an HTTP
 * status and its own body shape (v1: `{"message"}`, job API: `{"error"}`), so domain code never deals in HTTP.
 */
export const ERROR_CODES = [
  'VALIDATION_FAILED',
  'MALFORMED_JSON',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'HEADERS_TOO_LARGE',
  'UNAUTHORIZED',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'REQUEST_TIMEOUT',
  'CONFLICT',
  'RATE_LIMITED',
  'NO_CAPACITY',
  'INTERNAL',
] as const;

/** One of the error codes Runplane puts in its error bodies. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** An expected failure with a stable code and a message safe to show to API callers. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/** The resource does not exist or belongs to another account (never distinguished, so ids don't leak). */
export class NotFoundError extends DomainError {
  constructor(resource: string) {
    super('NOT_FOUND', `${resource} not found`);
  }
}

/** Missing, unknown, disabled or insufficiently scoped API key. */
export class UnauthorizedError extends DomainError {
  constructor(message = 'Unauthorized') {
    super('UNAUTHORIZED', message);
  }
}

/** Input that fails validation; the message names the offending field. */
export class ValidationError extends DomainError {
  constructor(message: string) {
    super('VALIDATION_FAILED', message);
  }
}

/** The request conflicts with existing state (e.g. a duplicate unique name). */
export class ConflictError extends DomainError {
  constructor(message: string) {
    super('CONFLICT', message);
  }
}
