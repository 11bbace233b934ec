import type { WebhookDeliverPayload } from '@runplane/contracts';
import { type WebhookDelivery, WebhookDeliveryStatus } from '@runplane/db';
import { annotateActiveSpan, withSpan } from '@runplane/observability';
import type { WebhookDeliveriesRepository } from './deliveries.repository';
import type { WebhookSender } from './http-sender';
import { type AttemptOutcome, type DeliveryPolicy, failureOf, isDelivered, type NextStep, nextStep } from './policy';
import type { WebhookSecretsService } from './secrets.service';
import { messageIdOf, signatureHeaders } from './signing';
import { RefusedUrlError, type WebhookUrlGuard } from './url-safety';

/** The HTTP status of an answered attempt, as a span attribute. */
function statusCodeOf(outcome: AttemptOutcome): Record<string, number> {
  return outcome.kind === 'response' ? { 'http.response.status_code': outcome.statusCode } : {};
}

/** Queues attempt `attempt` of a delivery to start after `delayMs` (idempotent per delivery and attempt). */
export type AttemptScheduler = (deliveryId: string, attempt: number, delayMs: number) => Promise<void>;

/** A delivery request that no longer has an account to sign and record it for (its endpoint was deleted). */
export class OrphanedWebhookError extends Error {
  constructor(endpointId: string) {
    super(`Endpoint ${endpointId} no longer exists; its webhook is dropped`);
    this.name = 'OrphanedWebhookError';
  }
}

/** What one recorded attempt came to, as metrics count it. */
export type AttemptResult = 'delivered' | 'http_error' | 'network_error' | 'refused';

/** Where the dispatcher reports each attempt it records (once per attempt, by the dispatcher that recorded it). */
export interface DeliveryObserver {
  /**
   * An attempt was recorded; `ended` when the delivery ended with it: succeeded or failed for good, and the seconds
   * from the delivery's acceptance (the job's end, give or take the queue) to that end.
   */
  attempted(result: AttemptResult, ended?: { status: 'succeeded' | 'failed'; seconds: number }): void;
}

/** What the dispatcher is built from. */
export interface WebhookDispatcherDeps {
  deliveries: WebhookDeliveriesRepository;
  secrets: WebhookSecretsService;
  guard: WebhookUrlGuard;
  sender: WebhookSender;
  schedule: AttemptScheduler;
  /** Queues an attempt again for {@link WebhookDispatcher.resumeOverdue}, retrying its job if it failed; `schedule` when absent. */
  requeue?: AttemptScheduler;
  policy: DeliveryPolicy;
  now?: () => Date;
  observer?: DeliveryObserver;
}

/**
 * Delivers job webhooks. `accept` turns a `webhook.deliver` request into a delivery row and its first attempt;
 * `attempt` makes one POST, records it and schedules the next one when the policy says so. State lives in Postgres
 * and every step is idempotent, so a step run twice (a crash, a stalled queue job) neither loses nor repeats an
 * attempt beyond at-least-once.
 */
export class WebhookDispatcher {
  private readonly now: () => Date;

  constructor(private readonly deps: WebhookDispatcherDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /**
   * Records the delivery for `sourceKey` (the request's queue id) once, and makes sure its next attempt is queued.
   * The account is the payload's, or (requests queued before payloads named it) the endpoint's owner.
   */
  async accept(request: WebhookDeliverPayload, sourceKey: string): Promise<WebhookDelivery> {
    const accountId = request.accountId ?? (await this.deps.deliveries.accountOfEndpoint(request.endpointId));
    if (!accountId) throw new OrphanedWebhookError(request.endpointId);
    const delivery = await this.deps.deliveries.createOnce({
      accountId,
      endpointId: request.endpointId,
      jobId: request.jobId,
      url: request.url,
      sourceKey,
      body: JSON.stringify(request.record),
      maxAttempts: this.deps.policy.maxAttempts,
      nextAttemptAt: this.now(),
    });
    await this.resume(delivery);
    return delivery;
  }

  /** Runs attempt `attempt` of a delivery, unless it is already recorded or the delivery is finished. */
  async attempt(deliveryId: string, attempt: number): Promise<void> {
    const delivery = await this.deps.deliveries.findById(deliveryId);
    if (!delivery || delivery.status !== WebhookDeliveryStatus.PENDING || delivery.body === null) return;
    if (delivery.attempts !== attempt - 1) {
      // A stale or repeated queue job: this attempt is recorded already (or not due yet). Re-queue what is next.
      await this.resume(delivery);
      return;
    }
    const startedAt = this.now();
    await this.deps.deliveries.claimAttempt(delivery, attempt, startedAt);
    const body = delivery.body;
    const attributes = { 'runplane.webhook.delivery_id': deliveryId, 'runplane.webhook.attempt': attempt };
    // In the job's trace: the attempt's queue entry carries the context of the job-done that queued the delivery.
    const outcome = await withSpan('webhook.send', () => this.send(delivery, body), attributes, 'client');
    await this.record(delivery, attempt, outcome);
  }

  /**
   * Queues again the next attempt of every PENDING delivery overdue by more than `graceMs`: its attempt job was lost
   * (Redis lost data, or a queue write failed after the delivery was recorded). Attempt jobs have deterministic ids,
   * so re-queueing one that still exists is a no-op, and a stale one finds its attempt recorded and moves on.
   * Returns how many deliveries it looked at.
   */
  async resumeOverdue(graceMs: number, limit = 500): Promise<number> {
    const overdue = await this.deps.deliveries.overdue(new Date(this.now().getTime() - graceMs), limit);
    for (const delivery of overdue) await this.resume(delivery, this.deps.requeue ?? this.deps.schedule);
    return overdue.length;
  }

  /** Queues the delivery's next attempt if it is still PENDING; a no-op when that attempt is queued already. */
  private async resume(delivery: WebhookDelivery, schedule: AttemptScheduler = this.deps.schedule): Promise<void> {
    if (delivery.status !== WebhookDeliveryStatus.PENDING) return;
    const due = delivery.nextAttemptAt ?? this.now();
    await schedule(delivery.id, delivery.attempts + 1, due.getTime() - this.now().getTime());
  }

  private async send(delivery: WebhookDelivery, body: string): Promise<AttemptOutcome> {
    let destination;
    try {
      destination = await this.deps.guard.check(delivery.url);
    } catch (error) {
      if (error instanceof RefusedUrlError) return { kind: 'refused', reason: error.message };
      return { kind: 'error', error: (error as Error).message, durationMs: 0 };
    }
    const secret = await this.deps.secrets.current(delivery.accountId);
    const headers = signatureHeaders(secret, messageIdOf(delivery.id), this.now(), body);
    const outcome = await this.deps.sender.send({ destination, body, headers, timeoutMs: this.deps.policy.timeoutMs });
    annotateActiveSpan({ 'runplane.webhook.outcome': outcome.kind, ...statusCodeOf(outcome) });
    return outcome;
  }

  private async record(delivery: WebhookDelivery, attempt: number, outcome: AttemptOutcome): Promise<void> {
    const finishedAt = this.now();
    const step = nextStep({ ...this.deps.policy, maxAttempts: delivery.maxAttempts }, attempt, outcome, finishedAt);
    const status =
      step.kind === 'succeeded'
        ? WebhookDeliveryStatus.SUCCEEDED
        : step.kind === 'failed'
          ? WebhookDeliveryStatus.FAILED
          : WebhookDeliveryStatus.PENDING;
    const recorded = await this.deps.deliveries.finishAttempt({
      deliveryId: delivery.id,
      attempt,
      statusCode: outcome.kind === 'response' ? outcome.statusCode : null,
      durationMs: outcome.kind === 'refused' ? null : outcome.durationMs,
      error: failureOf(outcome),
      responseExcerpt: outcome.kind === 'response' ? outcome.excerpt : null,
      finishedAt,
      status,
      nextAttemptAt: step.kind === 'retry' ? step.at : null,
    });
    if (recorded) this.observe(delivery, outcome, step, finishedAt);
    if (recorded && step.kind === 'retry')
      await this.deps.schedule(delivery.id, step.attempt, this.deps.policy.spacingMs);
  }

  private observe(delivery: WebhookDelivery, outcome: AttemptOutcome, step: NextStep, finishedAt: Date): void {
    const result: AttemptResult =
      outcome.kind === 'refused'
        ? 'refused'
        : outcome.kind === 'error'
          ? 'network_error'
          : isDelivered(outcome)
            ? 'delivered'
            : 'http_error';
    const seconds = Math.max(0, finishedAt.getTime() - delivery.createdAt.getTime()) / 1000;
    this.deps.observer?.attempted(result, step.kind === 'retry' ? undefined : { status: step.kind, seconds });
  }
}
