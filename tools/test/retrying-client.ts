/**
 * A client as HTTP semantics let it retry: a GET (idempotent, RFC 9110 §9.2.2) whose connection closed before any
 * answer is sent again, up to MAX_ATTEMPTS times; nothing else is. A POST is never resent (a lost answer to /run may
 * still have queued the job), and a 503 is not retried either: a draining replica is taken out of rotation before it
 * stops serving, so no client should ever see one. Every request that does not end in an expected answer counts as
 * failed, with what happened.
 */
const MAX_ATTEMPTS = 3;

export class RetryingClient {
  readonly counts = { requests: 0, retried: 0, failures: [] as string[] };

  constructor(private readonly headers: Record<string, string>) {}

  /** The answer's parsed body when its status is one of `expected`, else undefined with the failure counted. */
  async send(
    url: string,
    init: { method?: string; body?: unknown },
    expected: number[],
  ): Promise<{ body: unknown } | undefined> {
    const method = init.method ?? 'GET';
    const body = init.body === undefined ? undefined : JSON.stringify(init.body);
    const headers = body === undefined ? this.headers : { ...this.headers, 'content-type': 'application/json' };
    this.counts.requests++;
    for (let attempt = 1; ; attempt++) {
      let response: Response;
      try {
        response = await fetch(url, { method, headers, body });
      } catch (error) {
        // fetch rejects before any answer arrived: the connection was refused or closed first.
        if (method === 'GET' && attempt < MAX_ATTEMPTS) {
          this.counts.retried++;
          continue;
        }
        return this.fail(`${method} ${url}: ${String((error as Error).cause ?? error)}`);
      }
      try {
        const text = await response.text();
        if (!expected.includes(response.status))
          return this.fail(`${method} ${url}: HTTP ${response.status} ${text.slice(0, 200)}`);
        return { body: text.length > 0 ? JSON.parse(text) : undefined };
      } catch (error) {
        return this.fail(`${method} ${url}: answer cut off (${String(error)})`);
      }
    }
  }

  private fail(what: string): undefined {
    this.counts.failures.push(what);
    return undefined;
  }
}
