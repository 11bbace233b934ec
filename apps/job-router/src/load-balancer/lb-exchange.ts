import type { UpstreamWorker } from './endpoint-pool';
import type { LbEndpoint } from './load-balancer';

/** How a load-balancing request ended: answered by a worker, failed (502, 503), or refused (413) and not counted. */
export type LbOutcome = 'completed' | 'failed' | 'refused';

/** What an exchange reports: its end, with its outcome (`abandoned`: the client left before any answer). */
export interface LbExchangeHooks {
  onEnd(outcome: LbOutcome | 'abandoned'): void;
  onError(error: unknown): void;
}

/**
 * One admitted load-balancing request (or WebSocket) from admission to the close of the client's connection: it holds
 * a rate-limit slot, counts as traffic of its endpoint and, once given one, as a request in flight on its worker.
 * {@link end} gives all of it back once and counts the request.
 */
export class LbExchange {
  outcome: LbOutcome | null = null;
  worker: UpstreamWorker | null = null;
  /** Stops the upstream request when the request is refused mid-way (set once it is proxied). */
  onRefused: () => void = () => undefined;
  private readonly closing = new AbortController();
  private ended = false;

  constructor(
    readonly entry: LbEndpoint,
    private readonly releaseSlot: () => Promise<void>,
    private readonly hooks: LbExchangeHooks,
  ) {
    entry.traffic.arrived(Date.now());
    entry.traffic.inFlight += 1;
  }

  /** Aborts when the client's connection closes. */
  get closed(): AbortSignal {
    return this.closing.signal;
  }

  /** Settles the outcome unless one was settled before; true when this call settled it. */
  settle(outcome: LbOutcome): boolean {
    if (this.outcome) return false;
    this.outcome = outcome;
    return true;
  }

  /** The client's connection closed; `answered`: the worker's answer reached it (else it went away first). */
  end(answered: boolean): void {
    if (this.ended) return;
    this.ended = true;
    this.closing.abort();
    const { traffic, pool } = this.entry;
    traffic.inFlight -= 1;
    if (this.worker) pool.release(this.worker);
    const outcome = this.outcome ?? (answered && this.worker ? 'completed' : null);
    if (outcome === 'completed' || outcome === 'failed') traffic.finished(outcome, Date.now());
    this.hooks.onEnd(outcome ?? 'abandoned');
    this.releaseSlot().catch(this.hooks.onError);
  }
}
