import type { WorkerTokensService } from '@runplane/accounts';
import type { WorkerRow } from '@runplane/endpoints';
import type { WorkerRetirement } from '@runplane/jobs';
import type { WorkerFleet } from './worker-fleet';

/**
 * Told when a worker is removed, with the moment of its removal: the worker stops counting (and billing) then, not when
 * its process is seen gone.
 */
export type WorkerRemovedHandler = (workerId: string, at: Date) => Promise<void>;

/** When a worker is removed, and whether only while it holds no job. */
export interface RemovalOptions {
  /** Epoch milliseconds of the removal. */
  at: number;
  onlyIfIdle?: boolean;
}

/**
 * Removing a worker touches four places, always in this order: the job engine retires it (no job is handed to it any
 * more, /health no longer counts it), its row goes (the reconciler stops its process), its usage ends, and its worker
 * token is revoked, all as of the moment of the retirement.
 */
export class WorkerRemoval {
  constructor(
    private readonly fleet: WorkerFleet,
    private readonly retirement: WorkerRetirement,
    private readonly tokens: WorkerTokensService,
    private readonly removed: WorkerRemovedHandler,
  ) {}

  /**
   * Starts draining a load-balancing worker: retired at `at`, it gets no new request from any job-router, and is
   * removed once those in flight are done (`drainedOut` in `@runplane/jobs`).
   */
  async drain(row: Pick<WorkerRow, 'id' | 'endpointId'>, at: number): Promise<void> {
    await this.retirement.retire(row.endpointId as string, row.id, at);
  }

  /** The endpoint's workers being drained, with when each started (retired but not removed yet). */
  drainingSince(endpointId: string, workerIds: readonly string[]): Promise<Map<string, number>> {
    return this.retirement.retiredAmong(endpointId, workerIds);
  }

  /** Removes the worker; with `onlyIfIdle`, a worker holding a job is neither retired nor removed (false). */
  async remove(row: Pick<WorkerRow, 'id' | 'accountId' | 'endpointId'>, options: RemovalOptions): Promise<boolean> {
    const endpointId = row.endpointId as string;
    if (!options.onlyIfIdle) await this.retirement.retire(endpointId, row.id, options.at);
    else if (!(await this.retirement.retireIdle(endpointId, row.id, options.at))) return false;
    await this.fleet.delete(row.id);
    await this.removed(row.id, new Date(options.at));
    await this.tokens.revoke({ accountId: row.accountId, endpointId, workerId: row.id });
    return true;
  }
}
