import { HttpException } from '@nestjs/common';
import { DomainError, type ErrorCode } from '@runplane/contracts';

/** An error reduced to what an API may show: status, stable code and a caller-safe message. */
export interface HttpErrorView {
  status: number;
  code: ErrorCode;
  message: string;
}

const STATUS_BY_CODE: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  MALFORMED_JSON: 400,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  HEADERS_TOO_LARGE: 431,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  NO_CAPACITY: 503,
  INTERNAL: 500,
};

/** Fastify's own request errors (raised before a handler runs), mapped to Runplane codes. */
const FASTIFY_ERRORS: Record<string, { code: ErrorCode; message: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'MALFORMED_JSON', message: 'Request body is not valid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    code: 'MALFORMED_JSON',
    message: "Request body is empty but Content-Type is 'application/json'",
  },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Unsupported Content-Type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'VALIDATION_FAILED',
    message: 'Content-Length does not match the request body',
  },
  FST_ERR_BAD_URL: { code: 'VALIDATION_FAILED', message: 'Request URL is not validly percent-encoded' },
  // A path id longer than any id of ours names nothing, as an unknown short one does.
  FST_ERR_MAX_PARAM_LENGTH: { code: 'NOT_FOUND', message: 'Not found' },
};

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'VALIDATION_FAILED',
  401: 'UNAUTHORIZED',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
};

function fastifyCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Classifies any thrown value. Domain errors and known framework errors keep their meaning; everything else
 * becomes a 500 whose message hides internals (`undefined` view means "internal").
 */
export function toHttpError(error: unknown): HttpErrorView | undefined {
  if (error instanceof DomainError) {
    return { status: STATUS_BY_CODE[error.code], code: error.code, message: error.message };
  }
  // Nest wraps Fastify's request errors in an HttpException whose cause is the original.
  const cause = error instanceof HttpException ? error.cause : undefined;
  const known = FASTIFY_ERRORS[fastifyCode(error) ?? fastifyCode(cause) ?? ''];
  if (known) return { status: STATUS_BY_CODE[known.code], ...known };
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const code = CODE_BY_STATUS[status];
    if (status === 404) return { status, code: 'NOT_FOUND', message: 'Not found' };
    if (code) return { status, code, message: error.message };
  }
  return undefined;
}
