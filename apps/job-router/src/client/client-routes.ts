import {
  type Principal,
  requestsQuery,
  runJobInput,
  statusQuery,
  streamWaitQuery,
  syncWaitQuery,
  ValidationError,
} from '@runplane/contracts';
import { type FastifyRequest, type PlainRoute, routeDeclarer } from '@runplane/http';
import type { ClientPolicy } from '../http/job-api-guards';
import type { JobApiService } from './job-api.service';

/** A client route of the job API, declared for the job API's client guards. */
export const clientRoute = routeDeclarer<ClientPolicy, Principal>();

type ClientRoute = PlainRoute<ClientPolicy, Principal>;

const BOTH = ['GET', 'POST'] as const;

// Fixed objects: a policy is read on every request, not built for it.
const STATUS_READ: ClientPolicy = { access: 'read', limit: 'status' };
const STATUS_WRITE: ClientPolicy = { access: 'write', limit: 'status' };

/** /status with `?ttl=` moves the job's deletion time, a write; without it, it only reads. */
function statusPolicy(request: FastifyRequest): ClientPolicy {
  return (request.query as Record<string, unknown> | undefined)?.ttl === undefined ? STATUS_READ : STATUS_WRITE;
}

function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value === '') return undefined;
  if (value.length > 255) throw new ValidationError('Idempotency-Key: must be at most 255 characters');
  return value;
}

/**
 * /run, /runsync and /status (GET and POST): submitting jobs and reading them, the busiest client routes. /run and
 * /runsync count their limits in the script that records the job (JobApiService), after their body is parsed.
 */
function submissionRoutes(jobs: JobApiService): ClientRoute[] {
  return [
    clientRoute({
      method: 'POST',
      url: '/v2/:endpointId/run',
      policy: { access: 'write', limit: 'run', limitedOnSubmit: true },
      body: runJobInput,
      handle: ({ caller, params, body, request }) =>
        jobs.run(caller, params.endpointId ?? '', body, idempotencyKeyOf(request.headers['idempotency-key'])),
    }),
    clientRoute({
      method: 'POST',
      url: '/v2/:endpointId/runsync',
      policy: { access: 'write', limit: 'runsync', limitedOnSubmit: true },
      query: syncWaitQuery,
      body: runJobInput,
      handle: ({ caller, params, query, body }) => jobs.runSync(caller, params.endpointId ?? '', body, query.wait),
    }),
    ...BOTH.map((method) =>
      clientRoute({
        method,
        url: '/v2/:endpointId/status/:jobId',
        policy: statusPolicy,
        query: statusQuery,
        handle: ({ caller, params, query }) =>
          jobs.status(caller, params.endpointId ?? '', params.jobId ?? '', query.ttl),
      }),
    ),
  ];
}

/**
 * /status-sync and /stream (GET and POST, as RunPod's clients use both), /cancel and /retry. A /stream read is a
 * write: it hands each chunk out once, so a reader takes it from the job's client.
 */
function jobRoutes(jobs: JobApiService, streamWaitMs: number): ClientRoute[] {
  return [
    ...BOTH.flatMap((method) => [
      clientRoute({
        method,
        url: '/v2/:endpointId/status-sync/:jobId',
        policy: { access: 'read', limit: 'status' },
        query: syncWaitQuery,
        handle: ({ caller, params, query }) =>
          jobs.statusSync(caller, params.endpointId ?? '', params.jobId ?? '', query.wait),
      }),
      clientRoute({
        method,
        url: '/v2/:endpointId/stream/:jobId',
        policy: { access: 'write', limit: 'stream' },
        query: streamWaitQuery,
        handle: ({ caller, params, query }) =>
          jobs.stream(caller, params.endpointId ?? '', params.jobId ?? '', query.wait ?? streamWaitMs),
      }),
    ]),
    clientRoute({
      method: 'POST',
      url: '/v2/:endpointId/cancel/:jobId',
      policy: { access: 'write', limit: 'cancel' },
      handle: ({ caller, params }) => jobs.cancel(caller, params.endpointId ?? '', params.jobId ?? ''),
    }),
    clientRoute({
      method: 'POST',
      url: '/v2/:endpointId/retry/:jobId',
      policy: { access: 'write', limit: 'run' },
      handle: ({ caller, params }) => jobs.retry(caller, params.endpointId ?? '', params.jobId ?? ''),
    }),
  ];
}

/** /purge-queue, /health, /metrics and /requests: the endpoint as a whole. */
function endpointRoutes(jobs: JobApiService): ClientRoute[] {
  return [
    clientRoute({
      method: 'POST',
      url: '/v2/:endpointId/purge-queue',
      policy: { access: 'write', limit: 'purge-queue' },
      handle: ({ caller, params }) => jobs.purgeQueue(caller, params.endpointId ?? ''),
    }),
    clientRoute({
      method: 'GET',
      url: '/v2/:endpointId/health',
      policy: { access: 'read' },
      handle: ({ caller, params }) => jobs.health(caller, params.endpointId ?? ''),
    }),
    clientRoute({
      method: 'GET',
      url: '/v2/:endpointId/metrics',
      policy: { access: 'read' },
      handle: ({ caller, params }) => jobs.metrics(caller, params.endpointId ?? ''),
    }),
    clientRoute({
      method: 'GET',
      url: '/v2/:endpointId/requests',
      policy: { access: 'read', limit: 'requests' },
      query: requestsQuery,
      handle: ({ caller, params, query }) => jobs.requests(caller, params.endpointId ?? '', query.limit),
    }),
  ];
}

/**
 * The client job API (RunPod's /v2/{endpointId}/...), each route declared with what it does (the key scopes it
 * admits), the limit it counts against and its schemas. Every success is exactly 200.
 */
export function clientRoutes(jobs: JobApiService, options: { streamWaitMs: number }): ClientRoute[] {
  return [...submissionRoutes(jobs), ...jobRoutes(jobs, options.streamWaitMs), ...endpointRoutes(jobs)];
}
