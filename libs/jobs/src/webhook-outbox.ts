import { withinTrace } from '@runplane/observability';
import type { jobEventsCatalog, Redis, TypedQueue, WEBHOOKS_QUEUE } from '@runplane/queue';
import { TERMINAL_STATUSES } from './engine';
import { toJobRecord } from './job-store';
import { SCRIPTS } from './engine-scripts';
import { indexMember, type JobKeys, parseIndexMember } from './protocol';

/** Settings of a {@link WebhookOutbox}. */
export interface WebhookOutboxOptions {
  /** Entries younger than this are left to the request that made them; the sweep relays older ones (default 5 s). */
  graceMs?: number;
  batch: number;
}

/**
 * Durable webhooks. The Lua step that gives a job with a webhook its terminal state also records it in the outbox
 * (`<base>outbox`, by finish time). The relay queues `webhook.deliver` with the deterministic id `<jobId>-<doneAt>`
 * and only then removes the entry, so a process that dies in between leaves the entry for the next sweep (of any
 * replica), and a replay is a no-op in BullMQ rather than a second delivery.
 */
export class WebhookOutbox {
  private readonly graceMs: number;

  constructor(
    private readonly redis: Redis,
    private readonly keys: JobKeys,
    private readonly webhooks: TypedQueue<typeof jobEventsCatalog, typeof WEBHOOKS_QUEUE>,
    private readonly options: WebhookOutboxOptions,
  ) {
    this.graceMs = options.graceMs ?? 5_000;
  }

  /** Relays one job's entry, if it has one (right after its terminal transition). */
  async relay(endpointId: string, jobId: string): Promise<void> {
    const member = indexMember(endpointId, jobId);
    const [score, hash] = await Promise.all([
      this.redis.zscore(this.keys.outbox, member),
      this.redis.hgetall(this.keys.job(endpointId, jobId)),
    ]);
    if (score === null) return;
    const url = hash['webhook'];
    // A job retried since (not terminal now) enters the outbox again when it ends; a deleted one has nothing to send.
    if (url && (TERMINAL_STATUSES as readonly string[]).includes(hash['status'] ?? '')) {
      const record = toJobRecord(jobId, hash, Number(hash['doneAt']));
      const payload = {
        endpointId,
        jobId,
        url,
        record,
        ...(hash['accountId'] ? { accountId: hash['accountId'] } : {}),
      };
      // Queued in the job's trace: under the job-done span that finished it, or (a sweep, a relay of the outbox) under
      // the context the job was submitted in, which the queue entry carries to the webhook-dispatcher.
      await withinTrace(hash['traceparent'], () =>
        this.webhooks.add('webhook.deliver', payload, { jobId: `${jobId}-${hash['doneAt']}` }),
      );
    }
    await SCRIPTS.outboxAck.run(this.redis, { base: this.keys.base, member, score });
  }

  /** Relays up to `batch` entries older than the grace period (left by a process that died before relaying them). */
  async relayDue(now: number): Promise<void> {
    const due = await this.redis.zrangebyscore(
      this.keys.outbox,
      '-inf',
      now - this.graceMs,
      'LIMIT',
      0,
      this.options.batch,
    );
    for (const member of due) {
      const entry = parseIndexMember(member);
      if (entry) await this.relay(entry.endpointId, entry.id);
    }
  }
}
