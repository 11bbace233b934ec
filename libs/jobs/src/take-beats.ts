/** Workers whose take heartbeats are remembered; past this the memory starts over (each writes one beat more). */
const TAKE_BEATS_KEPT = 10_000;

/**
 * A take counts as a heartbeat, but a worker taking jobs back to back need not write one per job: a beat younger
 * than a tenth of the interval is left as it is (lost-worker detection waits 3 intervals). Pings always write.
 */
export class TakeBeats {
  /** When each worker's last heartbeat was written by a take on this replica (engine clock). */
  private readonly last = new Map<string, number>();

  constructor(private readonly heartbeatIntervalMs: number) {}

  /** True when a take of this worker at `now` should write a heartbeat (it is then remembered as written). */
  due(endpointId: string, workerId: string, now: number): boolean {
    const key = `${endpointId}|${workerId}`;
    const last = this.last.get(key);
    if (last !== undefined && now >= last && now - last < this.heartbeatIntervalMs / 10) return false;
    if (this.last.size >= TAKE_BEATS_KEPT) this.last.clear();
    this.last.set(key, now);
    return true;
  }

  /** The worker's next take writes a heartbeat, whenever the last one was. */
  forget(endpointId: string, workerId: string): void {
    this.last.delete(`${endpointId}|${workerId}`);
  }
}
