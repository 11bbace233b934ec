import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from '@runplane/queue';

/** The consumer group of the job-router replicas' metrics on the engine's finished-jobs stream. */
export const METRICS_GROUP = 'metrics';
/** When the group takes over what a replica left: its unacknowledged entries, then its name. */
export interface GroupTimings {
  /** An entry a replica read and never acknowledged (it died) is taken over by another after this long. */
  claimIdleMs: number;
  /** A consumer (a replica gone, or restarted under a new name) idle this long with nothing pending is removed. */
  forgetIdleMs: number;
}

/** One minute to take over entries, one hour to forget a consumer. */
export const GROUP_TIMINGS: GroupTimings = { claimIdleMs: 60_000, forgetIdleMs: 3_600_000 };
const BATCH = 500;
/**
 * After a read that found fewer than BATCH entries, the next waits this long: under load each read (and its XACK)
 * then takes a batch of events rather than one or two, and the counters are at most this much behind.
 */
const READ_PAUSE_MS = 200;

type StreamEntry = [id: string, fields: string[] | null];

function fieldMap(fields: string[]): Record<string, string> {
  const map: Record<string, string> = {};
  for (let index = 0; index + 1 < fields.length; index += 2) map[fields[index] as string] = fields[index + 1] as string;
  return map;
}

/**
 * Reads a stream of the engine (the finished-jobs stream, `<base>finished`, for the metrics) as one member of the
 * consumer group {@link METRICS_GROUP}: Redis hands each entry
 * to exactly one job-router replica, so counting what each replica is handed makes the sum over replicas exact (no
 * event counted twice, none skipped while a replica is up). An entry is acknowledged after it is counted; one a
 * replica took and never acknowledged is claimed by another after a minute (GROUP_TIMINGS), which is right for
 * counters: the replica that died took its counts with it. Entries the stream trimmed (it keeps ~10,000) before
 * any replica read them are not counted. Uses its own connection: XREADGROUP BLOCK holds it.
 */
export class JobEventsGroup {
  /** This replica's consumer name in the group. */
  readonly consumer = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  private running = false;
  private grouped = false;
  private claimedAt = 0;
  private loop: Promise<void> | undefined;
  private pause: { timer: NodeJS.Timeout; resolve: () => void } | undefined;

  constructor(
    /** A dedicated client WITHOUT keyPrefix. */
    private readonly redis: Redis,
    private readonly streamKey: string,
    private readonly onEvent: (fields: Record<string, string>) => void,
    private readonly onError: (error: Error) => void,
    private readonly timings: GroupTimings = GROUP_TIMINGS,
  ) {}

  start(): void {
    this.running = true;
    this.loop = this.follow();
  }

  /** Ends the loop; a blocked read is abandoned (its entries stay pending for another replica). */
  async stop(): Promise<void> {
    this.running = false;
    this.redis.disconnect();
    if (this.pause) {
      clearTimeout(this.pause.timer);
      this.pause.resolve();
    }
    await this.loop;
  }

  private async follow(): Promise<void> {
    while (this.running) {
      try {
        const read = await this.readOnce();
        if (read > 0 && read < BATCH && this.running) await this.pauseBeforeNextRead();
      } catch (error) {
        if (!this.running) return;
        // The stream or its group was deleted (a flushed Redis): create the group again.
        if (String(error).includes('NOGROUP')) this.grouped = false;
        else this.onError(error as Error);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  private pauseBeforeNextRead(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.pause = undefined;
        resolve();
      }, READ_PAUSE_MS);
      this.pause = { timer, resolve };
    });
  }

  /** Reads (blocking up to 1 s) and counts the entries Redis hands this consumer; how many it handed. */
  private async readOnce(): Promise<number> {
    if (!this.grouped) await this.createGroup();
    const { claimIdleMs, forgetIdleMs } = this.timings;
    if (Date.now() - this.claimedAt > Math.min(claimIdleMs, forgetIdleMs) / 2) {
      await this.claimAbandoned();
      await this.forgetIdleConsumers();
    }
    const reply = (await this.redis.xreadgroup(
      'GROUP',
      METRICS_GROUP,
      this.consumer,
      'COUNT',
      BATCH,
      'BLOCK',
      1000,
      'STREAMS',
      this.streamKey,
      '>',
    )) as [string, StreamEntry[]][] | null;
    const entries = reply?.[0]?.[1] ?? [];
    await this.handle(entries);
    return entries.length;
  }

  private async createGroup(): Promise<void> {
    try {
      await this.redis.xgroup('CREATE', this.streamKey, METRICS_GROUP, '$', 'MKSTREAM');
    } catch (error) {
      if (!String(error).includes('BUSYGROUP')) throw error;
    }
    this.grouped = true;
  }

  /** Takes over the entries another consumer read and has not acknowledged for `claimIdleMs`. */
  private async claimAbandoned(): Promise<void> {
    this.claimedAt = Date.now();
    let cursor = '0-0';
    do {
      const [next, entries] = (await this.redis.xautoclaim(
        this.streamKey,
        METRICS_GROUP,
        this.consumer,
        this.timings.claimIdleMs,
        cursor,
        'COUNT',
        BATCH,
      )) as [string, StreamEntry[]];
      await this.handle(entries);
      cursor = next;
    } while (cursor !== '0-0' && this.running);
  }

  /** Removes the names of consumers long idle with nothing pending, so restarts do not pile names up in the group. */
  private async forgetIdleConsumers(): Promise<void> {
    const consumers = (await this.redis.xinfo('CONSUMERS', this.streamKey, METRICS_GROUP)) as unknown[][];
    for (const fields of consumers) {
      const info = fieldMap(fields.map(String));
      const idle = Number(info['inactive'] ?? info['idle']);
      if (info['name'] !== this.consumer && info['pending'] === '0' && idle >= this.timings.forgetIdleMs)
        await this.redis.xgroup('DELCONSUMER', this.streamKey, METRICS_GROUP, info['name'] ?? '');
    }
  }

  private async handle(entries: StreamEntry[]): Promise<void> {
    if (entries.length === 0) return;
    for (const [, fields] of entries) if (fields) this.onEvent(fieldMap(fields));
    await this.redis.xack(this.streamKey, METRICS_GROUP, ...entries.map(([id]) => id));
  }
}
