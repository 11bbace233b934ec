import type { BodyLimit, BodyLimitOf } from '@runplane/http';

/** Body size limits of the job API (bytes). */
export interface BodyLimits {
  run: number;
  runsync: number;
  other: number;
}

// An OpenAI request waits like /runsync and may carry as much (long prompts, inline images).
const RUNSYNC_SIZED = new Set(['runsync', 'job-done', 'job-stream', 'openai']);

/** The body limit of each job-API route by its URL pattern: /run's, /runsync's (and results'), or the others'. */
export function bodyLimitOf(limits: BodyLimits): BodyLimitOf {
  return (routeUrl: string): BodyLimit => {
    const operation = routeUrl.split('/').find((segment) => segment === 'run' || RUNSYNC_SIZED.has(segment));
    if (operation === 'run') return { bytes: limits.run, what: '/run' };
    if (operation) return { bytes: limits.runsync, what: `/${operation}` };
    return { bytes: limits.other, what: 'this route' };
  };
}
