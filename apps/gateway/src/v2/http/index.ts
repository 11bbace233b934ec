/**
 * The management API v2's HTTP conventions, for every resource family: controllers (V2Controller), problem+json errors
 * (ProblemError, unprocessable), strict bodies and queries (V2Body, V2Query), cursor pagination (paginationQuery,
 * paginate, listResponseSchema) and per-account quotas (V2RateLimiter).
 */
export * from './problem';
export * from './problem.filter';
export * from './validation';
export * from './pagination';
export * from './rate-limit';
export * from './v2-controller';
export { CurrentPrincipal, Reads, ReadsSecret, Writes } from '@runplane/http';
