import type { WaitingReasonDto } from '@runplane/contracts';
import type { WorkerStateEntry, WorkerStateStore } from '@runplane/endpoints';
import type { ScalingWorker } from '@runplane/placement';

/**
 * A state list is written whole again after this long, changed or not (the store keeps it 30 s): that restarts its
 * expiry, and it heals a hash that lost writes (a Redis restart, another leader's pass) within this time.
 */
const REWRITE_WHOLE_MS = 10_000;

/** What one pass publishes of an endpoint: its workers, the failed and throttled ones, why its queued jobs wait. */
export interface EndpointState {
  workers: ScalingWorker[];
  unhealthy: WorkerStateEntry[];
  throttled: WorkerStateEntry[];
  waiting: WaitingReasonDto | null;
}

/** What was last written of an endpoint: each worker's entry as a comparable text, the waiting reason's, and when. */
interface Published {
  entries: Map<string, string>;
  waiting: string | null;
  wholeAt: number;
}

/** An entry as text: two entries are the same when their texts are. */
const entryText = (entry: WorkerStateEntry): string => `${entry.state}\n${entry.reason ?? ''}`;

/** The reason's time changes every pass: it does not make the reason a new one. */
const waitingText = (waiting: WaitingReasonDto | null): string | null =>
  waiting && JSON.stringify({ ...waiting, at: undefined });

/**
 * Publishes each endpoint's worker states and waiting reason (read by `/health`, `/status` and the gateway's worker
 * lists, so they agree), each pass's in one write. Passes run on every cluster change, and while hundreds of workers
 * start most of them change a few entries: a pass writes only the entries that changed since the last (a patch), and
 * the whole list every 10 s. An unchanged state is not written until then, and an unchanged empty one (an idle
 * endpoint without workers) not at all.
 */
export class StatePublisher {
  private readonly published = new Map<string, Published>();

  constructor(
    private readonly store: Pick<WorkerStateStore, 'replace' | 'patch'>,
    private readonly clock: () => number,
  ) {}

  async publish(endpointId: string, state: EndpointState): Promise<void> {
    const throttled = new Set(state.throttled.map((entry) => entry.workerId));
    const states: WorkerStateEntry[] = [];
    for (const worker of state.workers) {
      if (throttled.has(worker.id)) continue;
      states.push({
        workerId: worker.id,
        state: worker.initializing ? 'initializing' : worker.busy ? 'running' : 'idle',
      });
    }
    states.push(...state.unhealthy, ...state.throttled);
    const entries = new Map(states.map((entry) => [entry.workerId, entryText(entry)]));
    const waiting = waitingText(state.waiting);
    const now = this.clock();
    const last = this.published.get(endpointId);
    if (!last || now - last.wholeAt >= REWRITE_WHOLE_MS) {
      // An empty state is no key at all: written once, it has nothing to keep from expiring.
      const empty = entries.size === 0 && waiting === null;
      if (last && empty && last.entries.size === 0 && last.waiting === null) return;
      await this.store.replace(endpointId, states, state.waiting);
      this.published.set(endpointId, { entries, waiting, wholeAt: now });
      return;
    }
    const set = states.filter((entry) => last.entries.get(entry.workerId) !== entries.get(entry.workerId));
    const removed = [...last.entries.keys()].filter((workerId) => !entries.has(workerId));
    const waitingChanged = waiting !== last.waiting;
    if (set.length === 0 && removed.length === 0 && !waitingChanged) return;
    await this.store.patch(endpointId, { set, removed, ...(waitingChanged ? { waiting: state.waiting } : {}) });
    this.published.set(endpointId, { entries, waiting, wholeAt: last.wholeAt });
  }
}
