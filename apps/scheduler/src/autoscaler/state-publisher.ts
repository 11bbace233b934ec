import type { WaitingReasonDto } from '@runplane/contracts';
import type { WorkerStateEntry, WorkerStateStore } from '@runplane/endpoints';
import type { ScalingWorker } from '@runplane/placement';

/** An unchanged worker state list is written again after this long (the store keeps it 30 s). */
const REPUBLISH_UNCHANGED_MS = 10_000;

/** What one pass publishes of an endpoint: its workers, the failed and throttled ones, why its queued jobs wait. */
export interface EndpointState {
  workers: ScalingWorker[];
  unhealthy: WorkerStateEntry[];
  throttled: WorkerStateEntry[];
  waiting: WaitingReasonDto | null;
}

/**
 * Publishes each endpoint's worker states and waiting reason in one write (read by `/health`, `/status` and the
 * gateway's worker lists, so they agree). Passes run on every cluster change: an unchanged state is rewritten only
 * well within the store's expiry, and an unchanged empty one (an idle endpoint without workers) not at all.
 */
export class StatePublisher {
  private readonly published = new Map<string, { signature: string; at: number }>();

  constructor(
    private readonly store: Pick<WorkerStateStore, 'replace'>,
    private readonly clock: () => number,
  ) {}

  async publish(endpointId: string, state: EndpointState): Promise<void> {
    const waiting = new Set(state.throttled.map((entry) => entry.workerId));
    const entries: WorkerStateEntry[] = state.workers
      .filter((worker) => !waiting.has(worker.id))
      .map((worker) => ({
        workerId: worker.id,
        state: worker.initializing ? 'initializing' : worker.busy ? 'running' : 'idle',
      }));
    const states = [...entries, ...state.unhealthy, ...state.throttled];
    // The reason's time changes every pass: it does not make the state a new one.
    const signature = JSON.stringify([states, state.waiting && { ...state.waiting, at: undefined }]);
    const now = this.clock();
    const last = this.published.get(endpointId);
    // An empty state is no key at all: written once, it has nothing to keep from expiring.
    const empty = states.length === 0 && state.waiting === null;
    if (last && last.signature === signature && (empty || now - last.at < REPUBLISH_UNCHANGED_MS)) return;
    await this.store.replace(endpointId, states, state.waiting);
    this.published.set(endpointId, { signature, at: now });
  }
}
