import { type DynamicModule, Logger, Module } from '@nestjs/common';
import { type DbClient, SecretBox } from '@runplane/db';
import { DB_CLIENT, HealthController, METRICS_REGISTRY } from '@runplane/http';
import type { MetricsRegistry } from '@runplane/observability';
import {
  createQueue,
  createRedis,
  type Redis,
  WEBHOOK_ATTEMPTS_QUEUE,
  type WebhookAttemptsQueue,
  webhookAttemptsCatalog,
} from '@runplane/queue';
import {
  type HostResolver,
  requeueAttempt,
  scheduleAttempt,
  UndiciWebhookSender,
  WebhookDeliveriesRepository,
  WebhookDispatcher,
  WebhookSecretsRepository,
  WebhookSecretsService,
  type WebhookSender,
  WebhookUrlGuard,
} from '@runplane/webhooks';
import type { WebhookDispatcherConfig } from './config';
import { deliveryMetrics } from './delivery-metrics';
import { DispatcherWorkers } from './dispatcher-workers';
import { ATTEMPTS_QUEUE, DISPATCHER_CONFIG, QUEUE_REDIS, WEBHOOK_DISPATCHER } from './tokens';

/** What tests may replace: name resolution, and the HTTP sender (to watch where requests go). */
export interface DispatcherOverrides {
  resolveHost?: HostResolver;
  sender?: WebhookSender;
}

const logger = new Logger('WebhookDispatcher');
const logQueueError = (error: Error): void => logger.warn(`attempt queue: ${error.message}`);

function createDispatcher(
  config: WebhookDispatcherConfig,
  db: DbClient,
  queue: WebhookAttemptsQueue,
  overrides: DispatcherOverrides & { metrics: MetricsRegistry },
): WebhookDispatcher {
  return new WebhookDispatcher({
    deliveries: new WebhookDeliveriesRepository(db),
    // The secrets are sealed with the same AES-256-GCM envelope and key as registry-auth passwords.
    secrets: new WebhookSecretsService(new WebhookSecretsRepository(db), new SecretBox(config.RUNPLANE_ENCRYPTION_KEY)),
    guard: new WebhookUrlGuard(config.WEBHOOK_ALLOWED_HOSTS, overrides.resolveHost),
    sender: overrides.sender ?? new UndiciWebhookSender(),
    schedule: (deliveryId, attempt, delayMs) => scheduleAttempt(queue, deliveryId, attempt, delayMs),
    requeue: (deliveryId, attempt, delayMs) => requeueAttempt(queue, deliveryId, attempt, delayMs),
    policy: {
      maxAttempts: config.WEBHOOK_MAX_ATTEMPTS,
      spacingMs: config.WEBHOOK_ATTEMPT_SPACING_MS,
      timeoutMs: config.WEBHOOK_ATTEMPT_TIMEOUT_MS,
    },
    observer: deliveryMetrics(overrides.metrics),
  });
}

/** Root module of the webhook-dispatcher (outbound webhook delivery). */
@Module({})
export class WebhookDispatcherModule {
  static forRoot(
    config: WebhookDispatcherConfig,
    infrastructure: DynamicModule,
    overrides: DispatcherOverrides = {},
  ): DynamicModule {
    return {
      module: WebhookDispatcherModule,
      imports: [infrastructure],
      controllers: [HealthController],
      providers: [
        { provide: DISPATCHER_CONFIG, useValue: config },
        // BullMQ refuses a client with a key prefix: the queues get their own client and prefix the keys themselves.
        { provide: QUEUE_REDIS, useFactory: () => createRedis(config.REDIS_URL) },
        {
          provide: ATTEMPTS_QUEUE,
          inject: [QUEUE_REDIS],
          useFactory: (redis: Redis) =>
            createQueue(
              webhookAttemptsCatalog,
              WEBHOOK_ATTEMPTS_QUEUE,
              { redis, prefix: config.REDIS_PREFIX },
              { onError: logQueueError },
            ),
        },
        {
          provide: WEBHOOK_DISPATCHER,
          inject: [DB_CLIENT, ATTEMPTS_QUEUE, METRICS_REGISTRY],
          useFactory: (db: DbClient, queue: WebhookAttemptsQueue, metrics: MetricsRegistry) =>
            createDispatcher(config, db, queue, { ...overrides, metrics }),
        },
        DispatcherWorkers,
      ],
    };
  }
}
