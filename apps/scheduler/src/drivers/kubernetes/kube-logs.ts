import { type LogCursor, logCursorAfter, type LogLine } from '@runplane/contracts';
import {
  type CoreV1Event,
  eventTime,
  followContainerLog,
  type KubeClients,
  type KubeStreamHandle,
  watchPodEvents,
} from '@runplane/kube';
import type { LogFollower, LogFollowRequest } from '../compute-driver';
import { CursorClock, logLineAt, nsOfDate, nsOfTimestamp, timestampOfNs } from '../logs/log-lines';

/** Settings of one Kubernetes log stream. */
export interface KubeLogOptions {
  clients: KubeClients;
  namespace: string;
  /** The workload's pod name (kept across generations). */
  pod: string;
  container: string;
  request: LogFollowRequest;
  /** First wait before reopening an ended upstream (the container not started yet, restarted, or gone). */
  retryMs?: number;
}

/** System lines' sequence numbers start here, so they never equal a container line's id of the same instant. */
const SYSTEM_SEQ_BASE = 1_000_000;
const MAX_RETRY_MS = 10_000;

function eventLine(event: CoreV1Event): string {
  const count = event.series?.count ?? event.count ?? 1;
  const text = `${event.reason ?? event.type ?? 'Event'}: ${event.message ?? ''}`.trim();
  return count > 1 ? `${text} (x${count})` : text;
}

/**
 * Follows a workload pod's container log (`pods/log`, follow) and its Events (list + watch, as `system` lines).
 * The stream never ends on its own: an upstream that ends (container not started yet, restarted, pod replaced or
 * gone) is reopened after a growing wait, from the second of the last line sent, skipping lines already sent.
 */
export class KubeLogFollower implements LogFollower {
  private closed = false;
  private container: KubeStreamHandle | null = null;
  private events: KubeStreamHandle | null = null;
  private readonly timers = new Set<NodeJS.Timeout>();
  private lastContainer: LogCursor | null;
  private readonly seenEvents = new Set<string>();
  private eventsListed = false;
  private pending: LogLine[] = [];
  private flushing = false;
  private readonly openedNs = nsOfDate(new Date());

  constructor(private readonly options: KubeLogOptions) {
    this.lastContainer = options.request.after;
    if (options.request.sources.includes('container')) this.openContainer(true, options.retryMs ?? 1_000);
    if (options.request.sources.includes('system')) this.openEvents(options.retryMs ?? 1_000);
  }

  /** Upstream requests still open (0 once closed). */
  get openUpstreams(): number {
    return (this.container ? 1 : 0) + (this.events ? 1 : 0);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.container?.close();
    this.events?.close();
    this.container = null;
    this.events = null;
  }

  /** Where the container log starts: after the last line sent, else the request's since or tail. */
  private containerStart(first: boolean): { tailLines?: number; sinceTime?: string } {
    const { tail, since } = this.options.request;
    if (this.lastContainer) return { sinceTime: timestampOfNs(this.lastContainer.ns).slice(0, 19) + 'Z' };
    if (!first) return { sinceTime: timestampOfNs(this.openedNs).slice(0, 19) + 'Z' };
    if (since) return { sinceTime: since.toISOString().slice(0, 19) + 'Z' };
    return tail > 0 ? { tailLines: tail } : { sinceTime: timestampOfNs(this.openedNs).slice(0, 19) + 'Z' };
  }

  private openContainer(first: boolean, retryMs: number): void {
    if (this.closed) return;
    const clock = new CursorClock();
    const { tail, since } = this.options.request;
    const skipBefore = !this.lastContainer && first && since ? nsOfDate(since) : null;
    const skipUntilOpen = !this.lastContainer && (!first || tail === 0);
    let received = false;
    const handle = followContainerLog(this.options.clients, {
      namespace: this.options.namespace,
      pod: this.options.pod,
      container: this.options.container,
      ...this.containerStart(first),
      onLine: (timestamp, text) => {
        const ns = nsOfTimestamp(timestamp);
        if (ns === null || this.closed) return;
        received = true;
        const cursor = clock.next(ns);
        if (this.lastContainer && !logCursorAfter(cursor, this.lastContainer)) return;
        if ((skipBefore !== null && ns < skipBefore) || (skipUntilOpen && ns < this.openedNs)) return;
        this.lastContainer = cursor;
        this.push(logLineAt(cursor, 'container', text));
      },
      onEnd: () => {
        if (this.container === handle) this.container = null;
        const wait = received ? 1_000 : Math.min(retryMs * 2, MAX_RETRY_MS);
        this.later(() => this.openContainer(false, wait), received ? 200 : retryMs);
      },
    });
    this.container = handle;
  }

  private openEvents(retryMs: number): void {
    if (this.closed) return;
    const handle = watchPodEvents(this.options.clients, {
      namespace: this.options.namespace,
      pod: this.options.pod,
      onList: (events) => this.listedEvents(events),
      onEvent: (event) => this.sendEvents([event], false),
      onEnd: (error) => {
        if (this.events === handle) this.events = null;
        const wait = error ? Math.min(retryMs * 2, MAX_RETRY_MS) : 1_000;
        this.later(() => this.openEvents(wait), error ? retryMs : 0);
      },
    });
    this.events = handle;
  }

  /** The first listing is the backfill (tail, since, after); later listings only add what was missed. */
  private listedEvents(events: CoreV1Event[]): void {
    const sorted = [...events].sort((a, b) => (eventTime(a)?.getTime() ?? 0) - (eventTime(b)?.getTime() ?? 0));
    this.sendEvents(sorted, !this.eventsListed);
    this.eventsListed = true;
  }

  private sendEvents(events: CoreV1Event[], backfill: boolean): void {
    const { tail, since, after } = this.options.request;
    const clock = new CursorClock();
    const lines: LogLine[] = [];
    for (const event of events) {
      const when = eventTime(event);
      const key = `${event.metadata?.uid ?? ''}:${event.series?.count ?? event.count ?? 1}:${when?.getTime() ?? 0}`;
      if (!when || this.seenEvents.has(key)) continue;
      this.seenEvents.add(key);
      const step = clock.next(nsOfDate(when));
      const cursor = { ns: step.ns, seq: SYSTEM_SEQ_BASE + step.seq };
      if (backfill && ((after && !logCursorAfter(cursor, after)) || (!after && since && when < since))) continue;
      lines.push(logLineAt(cursor, 'system', eventLine(event)));
    }
    const chosen = backfill && !after && !since ? lines.slice(Math.max(0, lines.length - tail)) : lines;
    for (const line of chosen) this.push(line);
  }

  private later(run: () => void, ms: number): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    this.timers.add(timer);
  }

  /** Lines arriving together go out as one batch. */
  private push(line: LogLine): void {
    this.pending.push(line);
    if (this.flushing) return;
    this.flushing = true;
    setImmediate(() => {
      this.flushing = false;
      const batch = this.pending;
      this.pending = [];
      if (!this.closed && batch.length > 0) this.options.request.onLines(batch);
    });
  }
}
