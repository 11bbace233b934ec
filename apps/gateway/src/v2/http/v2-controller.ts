import { Controller, UseFilters, UseInterceptors } from '@nestjs/common';
import { Authenticated } from '@runplane/http';
import { ProblemFilter } from './problem.filter';
import { V2RateLimitInterceptor } from './rate-limit';

const v2Path = (path: string): string => (path ? `v2/${path}` : 'v2');

/**
 * A controller of the management API v2 under `/v2/<path>`: every route needs an API key whose scope covers it (each
 * declares @Reads(), @Writes() or @ReadsSecret() from @runplane/http), is counted against the account's v2 quotas
 * (RateLimit headers, 429 with Retry-After) and answers every error as RFC 9457 problem+json.
 */
export function V2Controller(path: string): ClassDecorator {
  return (target) => {
    Controller(v2Path(path))(target);
    UseFilters(ProblemFilter)(target);
    Authenticated()(target);
    UseInterceptors(V2RateLimitInterceptor)(target);
  };
}

/** A v2 controller served without an API key (the OpenAPI document): errors are problem+json all the same. */
export function V2PublicController(path: string): ClassDecorator {
  return (target) => {
    Controller(v2Path(path))(target);
    UseFilters(ProblemFilter)(target);
  };
}
