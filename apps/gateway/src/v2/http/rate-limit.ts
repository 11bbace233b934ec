import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor } from '@nestjs/common';
import { RateLimiterRedis, type RateLimiterRes, REDIS_CLIENT, requestPrincipal } from '@runplane/http';
import type { Redis } from '@runplane/queue';
import type { FastifyReply, FastifyRequest } from '@runplane/http';
import { defer, from, mergeMap, type Observable } from 'rxjs';
import { ProblemError } from './problem';

/** One quota window of the v2 API: at most `quota` requests per account every `seconds`. */
export interface RateLimitWindow {
  name: string;
  seconds: number;
  quota: number;
}

/** Injection token for the v2 API's windows (V2Module provides it from the gateway's configuration). */
export const V2_RATE_LIMIT_WINDOWS = Symbol('V2_RATE_LIMIT_WINDOWS');

/** Per-account quotas of the v2 API, defaults: RunPod's published policy times ten (a self-hosted plane's tools poll). */
export function rateLimitWindows(perMinute: number, perHour: number, perDay: number): RateLimitWindow[] {
  return [
    { name: 'minute', seconds: 60, quota: perMinute },
    { name: 'hour', seconds: 3_600, quota: perHour },
    { name: 'day', seconds: 86_400, quota: perDay },
  ].filter((window) => window.quota > 0);
}

/** What one request's accounting decided: the headers to send, and the window exceeded, if any. */
export interface RateLimitDecision {
  headers: Record<string, string>;
  exceeded?: { window: string; retryAfterSeconds: number };
}

const isLimiterRes = (value: unknown): value is RateLimiterRes =>
  typeof value === 'object' && value !== null && 'msBeforeNext' in value && 'remainingPoints' in value;

/**
 * Counts each account's v2 requests in Redis, one counter per window, and words the IETF `RateLimit` and
 * `RateLimit-Policy` headers RunPod sends (`"minute";r=59;t=60, "hour";...`).
 */
@Injectable()
export class V2RateLimiter {
  private readonly limiters: { window: RateLimitWindow; limiter: RateLimiterRedis }[];
  private readonly policy: string;

  constructor(@Inject(REDIS_CLIENT) redis: Redis, @Inject(V2_RATE_LIMIT_WINDOWS) windows: RateLimitWindow[]) {
    this.limiters = windows.map((window) => ({
      window,
      limiter: new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `v2-rate:${window.name}`,
        points: window.quota,
        duration: window.seconds,
      }),
    }));
    this.policy = windows.map((w) => `"${w.name}";q=${w.quota};w=${w.seconds}`).join(', ');
  }

  /** Whether any window is configured; with none, requests are not counted and carry no RateLimit headers. */
  get counting(): boolean {
    return this.limiters.length > 0;
  }

  /** Counts one request of the account in every window. */
  async consume(accountId: string): Promise<RateLimitDecision> {
    if (this.limiters.length === 0) return { headers: {} };
    const results = await Promise.all(
      this.limiters.map(async ({ window, limiter }) => {
        try {
          return { window, res: await limiter.consume(accountId, 1), refused: false };
        } catch (error) {
          if (!isLimiterRes(error)) throw error;
          return { window, res: error, refused: true };
        }
      }),
    );
    const state = results.map(
      ({ window, res }) =>
        `"${window.name}";r=${Math.max(0, res.remainingPoints)};t=${Math.ceil(res.msBeforeNext / 1000)}`,
    );
    const decision: RateLimitDecision = { headers: { ratelimit: state.join(', '), 'ratelimit-policy': this.policy } };
    const refused = results.filter((r) => r.refused).sort((a, b) => b.res.msBeforeNext - a.res.msBeforeNext)[0];
    if (refused) {
      decision.exceeded = {
        window: refused.window.name,
        retryAfterSeconds: Math.ceil(refused.res.msBeforeNext / 1000),
      };
    }
    return decision;
  }
}

/**
 * Applies V2RateLimiter to an authenticated v2 route: every answer, errors included, carries the headers, and a request
 * over a quota is a 429 problem with `Retry-After` (runs after ApiKeyGuard, so it counts per account).
 */
@Injectable()
export class V2RateLimitInterceptor implements NestInterceptor {
  constructor(@Inject(V2RateLimiter) private readonly limiter: V2RateLimiter) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    if (!this.limiter.counting) return next.handle();
    return defer(() => from(this.limiter.consume(requestPrincipal(request).accountId))).pipe(
      mergeMap((decision) => {
        for (const [name, value] of Object.entries(decision.headers)) void reply.header(name, value);
        if (decision.exceeded) {
          const { window, retryAfterSeconds } = decision.exceeded;
          throw new ProblemError(429, `rate limit exceeded for the ${window} window`, { retryAfterSeconds });
        }
        return next.handle();
      }),
    );
  }
}
