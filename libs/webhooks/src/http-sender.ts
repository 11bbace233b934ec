import type { LookupFunction } from 'node:net';
import type * as Undici from 'undici';
import type { AttemptOutcome } from './policy';
import type { Destination } from './url-safety';

/** At most this many bytes of a response body are read and kept; the rest is discarded unread. */
export const RESPONSE_EXCERPT_BYTES = 512;

/** One POST of a webhook: where, what and how long it may take. */
export interface WebhookRequest {
  destination: Destination;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

/** Sends one webhook request and reports what happened; never throws for the receiver's failures. */
export interface WebhookSender {
  send(request: WebhookRequest): Promise<AttemptOutcome>;
}

/** net.connect's lookup, answering with the address checked before the request: no second DNS answer is used. */
function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

/** Text of at most `limit` UTF-8 bytes (Postgres text cannot hold NUL, so NULs are dropped). */
export function excerptOf(bytes: Buffer, limit = RESPONSE_EXCERPT_BYTES): string {
  let text = new TextDecoder('utf-8').decode(bytes.subarray(0, limit), { stream: true }).replaceAll('\u0000', '');
  while (Buffer.byteLength(text) > limit) text = text.slice(0, -1);
  return text;
}

async function readExcerpt(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= RESPONSE_EXCERPT_BYTES) break;
  }
  // Leaving the loop early destroys the stream: the rest of a large body is never downloaded.
  body.destroy();
  return excerptOf(Buffer.concat(chunks));
}

function basicAuth(url: URL): Record<string, string> {
  if (!url.username && !url.password) return {};
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` };
}

function describeError(error: unknown, timeoutMs: number, timedOut: boolean): string {
  if (timedOut) return `timed out after ${timeoutMs} ms`;
  const err = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err.code ?? err.cause?.code;
  const message = err.cause?.message ?? err.message ?? String(error);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

/**
 * undici, loaded with the first webhook sent: a service that sends none (the gateway, an idle dispatcher) does not
 * hold its ~5 MB of code.
 */
function undici(): Pick<typeof Undici, 'Agent' | 'request'> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('undici') as typeof Undici;
}

/**
 * POSTs with undici over a one-request Agent whose connections go to the pinned address (the URL's host still
 * names the Host header and TLS server name). Redirects are not followed: a 3xx is just a non-2xx answer.
 */
export class UndiciWebhookSender implements WebhookSender {
  async send({ destination, body, headers, timeoutMs }: WebhookRequest): Promise<AttemptOutcome> {
    const { Agent, request } = undici();
    const agent = new Agent({
      connect: { lookup: pinnedLookup(destination.address, destination.family), timeout: timeoutMs },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const signal = AbortSignal.timeout(timeoutMs);
    const started = performance.now();
    const url = new URL(destination.url);
    const auth = basicAuth(url);
    url.username = '';
    url.password = '';
    try {
      const response = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth, ...headers },
        body,
        dispatcher: agent,
        signal,
      });
      const excerpt = await readExcerpt(response.body);
      return {
        kind: 'response',
        statusCode: response.statusCode,
        excerpt,
        durationMs: Math.round(performance.now() - started),
      };
    } catch (error) {
      const durationMs = Math.round(performance.now() - started);
      return { kind: 'error', error: describeError(error, timeoutMs, signal.aborted), durationMs };
    } finally {
      await agent.destroy().catch(() => undefined);
    }
  }
}
