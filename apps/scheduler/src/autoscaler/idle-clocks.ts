/**
 * How long each worker has been idle, as the autoscaler can tell from its passes and the job engine's events. A pass
 * sees whether a worker holds a job at that moment; a job that ends between two passes ended at some time between
 * them, possibly just before the later one. So the idle time of a worker seen busy by the previous pass starts at the
 * first pass that sees it idle (or at its job's finished event, whichever is later): a worker is never taken for
 * idle past idleTimeout on the strength of a job it finished a moment ago, however far apart slow passes are.
 */
export class IdleClocks {
  /** When each worker was last known to hold a job (ms since the epoch). */
  private readonly lastBusy = new Map<string, number>();
  /** Workers the last observation saw holding a job. */
  private readonly busyBefore = new Set<string>();

  /** A job of the worker finished at `at` (the engine's event). */
  finished(workerId: string, at: number): void {
    this.lastBusy.set(workerId, Math.max(at, this.lastBusy.get(workerId) ?? 0));
  }

  /** The worker holds a job as of `now` (seen by a pass, or it took one since). */
  busy(workerId: string, now: number): void {
    this.lastBusy.set(workerId, now);
    this.busyBefore.add(workerId);
  }

  /**
   * One pass's view of a worker: whether it holds a job now. Returns how long it has been idle at `now`, counted from
   * the later of when it last held a job and `startedAt` (when its process started).
   */
  observe(workerId: string, holdsJob: boolean, startedAt: number, now: number): number {
    if (holdsJob) this.busy(workerId, now);
    else if (this.busyBefore.delete(workerId)) this.lastBusy.set(workerId, now);
    return Math.max(0, now - Math.max(this.lastBusy.get(workerId) ?? 0, startedAt));
  }

  /** The worker is gone. */
  forget(workerId: string): void {
    this.lastBusy.delete(workerId);
    this.busyBefore.delete(workerId);
  }
}
