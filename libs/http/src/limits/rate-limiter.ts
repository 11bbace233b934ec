/**
 * rate-limiter-flexible's Redis counters, owned by this lib as the way an API limits its requests; apps use them
 * through here (the job API's per-endpoint limits are built on them).
 */
export { RateLimiterRedis, type RateLimiterRes } from 'rate-limiter-flexible';
