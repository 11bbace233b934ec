import type { Redis } from '@runplane/queue';

/** One entry of the engine's `jobs:events` stream (see @runplane/jobs events.ts). */
export interface JobEvent {
  type: string;
  endpointId: string;
  jobId?: string;
  workerId?: string;
  /** `worker.unhealthy`: what the worker reported. */
  reason?: string;
}

function toEvent(fields: string[]): JobEvent {
  const map: Record<string, string> = {};
  for (let index = 0; index + 1 < fields.length; index += 2) map[fields[index] as string] = fields[index + 1] as string;
  return {
    type: map['type'] ?? '',
    endpointId: map['endpointId'] ?? '',
    jobId: map['jobId'],
    workerId: map['workerId'],
    reason: map['reason'],
  };
}

/**
 * Follows the job engine's event stream with a blocking XREAD (from the entries added after it started), so the
 * autoscaler reacts to a queued job at once instead of at its next tick. Uses its own connection: XREAD BLOCK holds it.
 */
export class JobEventsFollower {
  private running = false;

  constructor(
    /** A dedicated client WITHOUT keyPrefix. */
    private readonly redis: Redis,
    private readonly streamKey: string,
    private readonly onEvents: (events: JobEvent[]) => void,
    private readonly onError: (error: Error) => void,
  ) {}

  start(): void {
    this.running = true;
    void this.follow();
  }

  /** Ends the follow loop; a blocked XREAD on a Redis that is gone is abandoned, not awaited. */
  stop(): void {
    this.running = false;
    this.redis.disconnect();
  }

  private async follow(): Promise<void> {
    let lastId = '$';
    while (this.running) {
      try {
        const reply = (await this.redis.xread('COUNT', 500, 'BLOCK', 1000, 'STREAMS', this.streamKey, lastId)) as
          [string, [string, string[]][]][] | null;
        const entries = reply?.[0]?.[1] ?? [];
        if (entries.length === 0) continue;
        lastId = entries[entries.length - 1]?.[0] ?? lastId;
        this.onEvents(entries.map(([, fields]) => toEvent(fields)));
      } catch (error) {
        if (!this.running) return;
        this.onError(error as Error);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }
}
