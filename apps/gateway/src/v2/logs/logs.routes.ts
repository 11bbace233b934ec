import { LOG_TAIL_DEFAULT, LOG_TAIL_MAX, logSource, queryInt } from '@runplane/contracts';
import { z } from 'zod';
import type { V2Route } from '../openapi/route';

/** Query of both log streams: `tail`, `since` and `source` (unknown parameters are ignored, as RunPod does). */
export const logStreamQuery = z.object({
  tail: queryInt(0, LOG_TAIL_MAX).default(LOG_TAIL_DEFAULT),
  since: z.iso.datetime({ offset: true, error: 'expected an RFC 3339 date-time' }).optional(),
  source: logSource.optional(),
});
/** Parsed log stream query. */
export type LogStreamQuery = z.infer<typeof logStreamQuery>;

const SSE_DESCRIPTION =
  'Server-Sent Events that never end on their own: each event has an `id:` (`<ns>/<seq>`, for Last-Event-ID) and ' +
  'a JSON `data:` with `ts` (RFC 3339), `source` (container or system) and `line`. `tail` lines of backfill ' +
  '(default 100, at most 5000), or everything after `since`, or after `Last-Event-ID`, then the stream follows.';

/** The two log streams, as the v2 OpenAPI document lists them. */
export const LOG_ROUTES: V2Route[] = [
  {
    method: 'GET',
    path: '/v2/pods/{id}/logs',
    operationId: 'getPodLogs',
    summary: "Stream a Pod's container output and platform events",
    tag: 'Pods',
    status: 200,
    query: logStreamQuery,
    headers: ['Last-Event-ID'],
    response: { kind: 'sse', description: SSE_DESCRIPTION },
  },
  {
    method: 'GET',
    path: '/v2/serverless/{id}/workers/{workerId}/logs',
    operationId: 'getWorkerLogs',
    summary: "Stream a serverless worker's container output and platform events",
    tag: 'Serverless',
    status: 200,
    query: logStreamQuery,
    headers: ['Last-Event-ID'],
    response: { kind: 'sse', description: SSE_DESCRIPTION },
  },
];
