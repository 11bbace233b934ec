import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import {
  createWorker,
  jobEventsCatalog,
  type Redis,
  type TypedWorker,
  UnrecoverableError,
  WEBHOOK_ATTEMPTS_QUEUE,
  type WebhookAttemptsQueue,
  webhookAttemptsCatalog,
  WEBHOOKS_QUEUE,
} from '@runplane/queue';
import { OrphanedWebhookError, type WebhookDispatcher } from '@runplane/webhooks';
import type { WebhookDispatcherConfig } from './config';
import { ATTEMPTS_QUEUE, DISPATCHER_CONFIG, QUEUE_REDIS, WEBHOOK_DISPATCHER } from './tokens';

/**
 * Consumes the `webhooks` queue (delivery requests from the job engine) and the dispatcher's own `webhook-attempts`
 * queue. Thin transport: each handler calls one dispatcher method. Workers start once the app is up and are closed
 * (letting running attempts finish) before the database and Redis connections go away.
 */
@Injectable()
export class DispatcherWorkers implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('WebhookDispatcher');
  private workers: TypedWorker[] = [];
  private sweepTimer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;

  constructor(
    @Inject(WEBHOOK_DISPATCHER) private readonly dispatcher: WebhookDispatcher,
    @Inject(QUEUE_REDIS) private readonly redis: Redis,
    @Inject(ATTEMPTS_QUEUE) private readonly attempts: WebhookAttemptsQueue,
    @Inject(DISPATCHER_CONFIG) private readonly config: WebhookDispatcherConfig,
  ) {}

  onApplicationBootstrap(): void {
    const connection = { redis: this.redis, prefix: this.config.REDIS_PREFIX };
    const onError = (error: Error) => this.logger.warn(`queue worker: ${error.message}`);
    const intake = createWorker(
      jobEventsCatalog,
      WEBHOOKS_QUEUE,
      { 'webhook.deliver': (data, context) => this.accept(data, context.id) },
      { ...connection, concurrency: this.config.WEBHOOK_CONCURRENCY, onError },
    );
    const attempts = createWorker(
      webhookAttemptsCatalog,
      WEBHOOK_ATTEMPTS_QUEUE,
      { 'webhook.attempt': (data) => this.dispatcher.attempt(data.deliveryId, data.attempt) },
      { ...connection, concurrency: this.config.WEBHOOK_CONCURRENCY, onError },
    );
    this.workers = [intake, attempts];
    if (this.config.WEBHOOK_SWEEP_INTERVAL_MS > 0) {
      this.sweepTimer = setInterval(() => this.sweep(), this.config.WEBHOOK_SWEEP_INTERVAL_MS);
      this.sweepTimer.unref();
    }
  }

  /**
   * Queues again the attempts of deliveries overdue by more than the grace (see WebhookDispatcher.resumeOverdue).
   * Every replica may run it: re-queueing is idempotent. A sweep still running when the next is due is not stacked.
   */
  private sweep(): void {
    if (this.sweeping) return;
    this.sweeping = this.dispatcher
      .resumeOverdue(this.config.WEBHOOK_SWEEP_GRACE_MS)
      .then((count) => void (count > 0 && this.logger.log(`looked again at ${count} overdue deliveries`)))
      .catch((error: unknown) => this.logger.warn(`overdue deliveries: ${(error as Error).message}`))
      .finally(() => (this.sweeping = undefined));
  }

  /**
   * Lets running attempts finish (up to one attempt's timeout) before the connections close. BullMQ's graceful
   * close waits for Redis, so without Redis, or past the grace time, the workers are closed by force: an attempt cut
   * off here is run again by another dispatcher once its lock lapses (at-least-once).
   */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.sweepTimer);
    await this.sweeping;
    const force = this.redis.status !== 'ready';
    const closing = Promise.allSettled([
      ...this.workers.map((typed) => typed.worker.close(force)),
      this.attempts.close(),
    ]);
    const deadline = setTimeout(() => this.disconnectWorkers(), this.config.WEBHOOK_ATTEMPT_TIMEOUT_MS + 1_000);
    if (force) this.disconnectWorkers();
    await closing;
    clearTimeout(deadline);
  }

  onApplicationShutdown(): void {
    this.redis.disconnect();
  }

  private disconnectWorkers(): void {
    this.redis.disconnect();
    for (const typed of this.workers) void typed.worker.disconnect().catch(() => undefined);
  }

  private async accept(data: Parameters<WebhookDispatcher['accept']>[0], sourceKey: string): Promise<void> {
    try {
      await this.dispatcher.accept(data, sourceKey);
    } catch (error) {
      if (!(error instanceof OrphanedWebhookError)) throw error;
      this.logger.warn(error.message);
      throw new UnrecoverableError(error.message);
    }
  }
}
