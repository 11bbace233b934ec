import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request that reached the receiver. */
export interface ReceivedCall {
  path: string;
  webhookId: string;
  /** Date.now() when the request arrived. */
  at: number;
  /** What the receiver answered; 0 for a request it held unanswered (see {@link WebhookReceiver.holdAfter}). */
  status: number;
  /** The Standard Webhooks signature verified under the secret the receiver was given. */
  verified: boolean;
  body: string;
  headers: IncomingHttpHeaders;
}

/**
 * A customer's webhook endpoint on 127.0.0.1: per path it fails the first N calls (HTTP 500 unless told otherwise),
 * then answers 200; it verifies every signature with the account's secret and records each call. It can also hold
 * requests unanswered, so that a test can kill the sender while its requests are in flight.
 */
export class WebhookReceiver {
  readonly calls: ReceivedCall[] = [];
  /** The secret signatures are verified with (the account's, read from the /v1 route). */
  secret = '';
  private readonly failures = new Map<
    string,
    { remaining: number; status: number; headers?: Record<string, string> }
  >();
  private server: Server | undefined;
  private port = 0;
  /** How many more requests are answered before the receiver holds the rest; unlimited unless holdAfter was called. */
  private answersLeft = Number.POSITIVE_INFINITY;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const path = req.url ?? '/';
        const webhookId = String(req.headers['webhook-id']);
        const call = {
          path,
          webhookId,
          at: Date.now(),
          verified: this.verify(body, req.headers),
          body,
          headers: req.headers,
        };
        if (this.answersLeft <= 0) {
          // Held: recorded as it arrived, never answered. The sender is killed with it in flight.
          this.calls.push({ ...call, status: 0 });
          return;
        }
        this.answersLeft -= 1;
        const failure = this.failures.get(path);
        const failing = failure !== undefined && failure.remaining > 0;
        if (failing) failure.remaining -= 1;
        const status = failing ? failure.status : 200;
        this.calls.push({ ...call, status });
        res.writeHead(status, failing ? (failure.headers ?? {}) : {}).end(failing ? 'receiver says no' : 'ok');
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** `host:port` of the receiver, for WEBHOOK_ALLOWED_HOSTS. */
  get hostPort(): string {
    return `127.0.0.1:${this.port}`;
  }

  url(path: string, host = '127.0.0.1'): string {
    return `http://${host}:${this.port}${path}`;
  }

  /** The first `count` calls to `path` are answered with `status` (and `headers`). */
  failFirst(path: string, count: number, status = 500, headers?: Record<string, string>): void {
    this.failures.set(path, { remaining: count, status, ...(headers ? { headers } : {}) });
  }

  /** Answers the next `count` requests as usual, then holds every later one unanswered (until {@link answerAll}). */
  holdAfter(count: number): void {
    this.answersLeft = count;
  }

  /** Answers every request from now on; requests held so far stay unanswered. */
  answerAll(): void {
    this.answersLeft = Number.POSITIVE_INFINITY;
  }

  /** Requests held unanswered so far. */
  held(): ReceivedCall[] {
    return this.calls.filter((call) => call.status === 0);
  }

  callsTo(path: string): ReceivedCall[] {
    return this.calls.filter((call) => call.path === path);
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private verify(body: string, headers: IncomingHttpHeaders): boolean {
    try {
      new Webhook(this.secret).verify(body, headers as Record<string, string>);
      return true;
    } catch {
      return false;
    }
  }
}
