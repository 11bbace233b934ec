import { type LogLine, type LogSource, parseLogCursor } from '@runplane/contracts';
import type { FastifyReply, FastifyRequest } from '@runplane/http';
import { unprocessable } from '../http/problem';
import type { LogStreamClient, LogStreamSession } from './log-stream.client';
import type { LogStreamQuery } from './logs.routes';

/** Where a stream starts: `Last-Event-ID` wins over `since`, which wins over `tail`. */
export function streamStart(
  query: LogStreamQuery,
  lastEventId: string | undefined,
): { tail: number; since: string | null; after: string | null } {
  const id = lastEventId?.trim();
  if (id) {
    if (parseLogCursor(id)) return { tail: query.tail, since: null, after: id };
    // RunPod documents the header as a timestamp: one is read as `since`.
    if (/^\d{4}-\d{2}-\d{2}T/.test(id) && !Number.isNaN(Date.parse(id)))
      return { tail: query.tail, since: id, after: null };
    throw unprocessable([`Last-Event-ID: not an event id of this stream (${JSON.stringify(id.slice(0, 64))})`]);
  }
  return { tail: query.tail, since: query.since ?? null, after: null };
}

/** One SSE event of a line. */
function sseEvent(line: LogLine): string {
  return `id: ${line.id}\ndata: ${JSON.stringify({ ts: line.ts, source: line.source, line: line.line })}\n\n`;
}

/** Headers of the stream: the ones already set (RateLimit, x-request-id) and SSE's. */
function sseHeaders(request: FastifyRequest, reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders()))
    if (value !== undefined) headers[name] = String(value);
  return {
    ...headers,
    'x-request-id': String(request.id),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
  };
}

/** What {@link respondWithLogStream} streams. */
export interface LogStreamResponse {
  request: FastifyRequest;
  reply: FastifyReply;
  client: LogStreamClient;
  podId: string;
  query: LogStreamQuery;
}

/**
 * Opens the stream (a failure is still answered as a problem), then answers 200 `text/event-stream` and writes each
 * batch as it comes; the client going away closes the stream, which releases the scheduler's upstream at once.
 */
export async function respondWithLogStream(options: LogStreamResponse): Promise<void> {
  const { request, reply, query } = options;
  const header = request.headers['last-event-id'];
  const start = streamStart(query, Array.isArray(header) ? header[0] : header);
  const sources: LogSource[] = query.source ? [query.source] : ['container', 'system'];
  const early: string[] = [];
  let write = (text: string): void => void early.push(text);
  let ended = false;
  let finish = (): void => void (ended = true);
  const session: LogStreamSession = await options.client.open(
    { podId: options.podId, sources, ...start },
    {
      lines: (lines) => write(lines.map(sseEvent).join('')),
      heartbeat: () => write(': keep-alive\n\n'),
      ended: (message) => {
        write(`event: error\ndata: ${JSON.stringify({ message })}\n\n`);
        finish();
      },
    },
  );
  const raw = reply.hijack().raw;
  raw.on('close', () => void session.close());
  if (raw.destroyed) return void session.close();
  raw.writeHead(200, sseHeaders(request, reply));
  raw.write(': stream opened\n\n');
  write = (text) => void raw.write(text);
  finish = () => raw.end();
  for (const text of early.splice(0)) write(text);
  if (ended) finish();
}
