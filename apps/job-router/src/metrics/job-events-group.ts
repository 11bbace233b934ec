import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from '@runplane/queue';

/** The consumer group of the job-router replicas' metrics on the engine's event stream. */
export const METRICS_GROUP = 'metrics';
/** An entry a replica read but never acknowledged (it died) is taken over by another after this long. */
export const CLAIM_IDLE_MS = 60_000;
const BATCH = 500;

type StreamEntry = [id: string, fields: string[] | null];

function fieldMap(fields: string[]): Record<string, string> {
  const map: Record<string, string> = {};
  for (let index = 0; index + 1 < fields.length; index += 2) map[fields[index] as string] = fields[index + 1] as string;
  return map;
}

/**
 * Reads the engine's event stream as one member of the consumer group {@link METRICS_GROUP}: Redis hands each entry
 * to exactly one job-router replica, so counting what each replica is handed makes the sum over replicas exact (no
 * event counted twice, none skipped while a replica is up). An entry is acknowledged after it is counted; one a
 * replica took and never acknowledged is claimed by another after {@link CLAIM_IDLE_MS}, which is right for
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

  constructor(
    /** A dedicated client WITHOUT keyPrefix. */
    private readonly redis: Redis,
    private readonly streamKey: string,
    private readonly onEvent: (fields: Record<string, string>) => void,
    private readonly onError: (error: Error) => void,
    private readonly claimIdleMs = CLAIM_IDLE_MS,
  ) {}

  start(): void {
    this.running = true;
    this.loop = this.follow();
  }

  /** Ends the loop; a blocked read is abandoned (its entries stay pending for another replica). */
  async stop(): Promise<void> {
    this.running = false;
    this.redis.disconnect();
    await this.loop;
  }

  private async follow(): Promise<void> {
    while (this.running) {
      try {
        await this.readOnce();
      } catch (error) {
        if (!this.running) return;
        // The stream or its group was deleted (a flushed Redis): create the group again.
        if (String(error).includes('NOGROUP')) this.grouped = false;
        else this.onError(error as Error);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  private async readOnce(): Promise<void> {
    if (!this.grouped) await this.createGroup();
    if (Date.now() - this.claimedAt > this.claimIdleMs / 2) await this.claimAbandoned();
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
    await this.handle(reply?.[0]?.[1] ?? []);
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
        this.claimIdleMs,
        cursor,
        'COUNT',
        BATCH,
      )) as [string, StreamEntry[]];
      await this.handle(entries);
      cursor = next;
    } while (cursor !== '0-0' && this.running);
  }

  private async handle(entries: StreamEntry[]): Promise<void> {
    if (entries.length === 0) return;
    for (const [, fields] of entries) if (fields) this.onEvent(fieldMap(fields));
    await this.redis.xack(this.streamKey, METRICS_GROUP, ...entries.map(([id]) => id));
  }
}
