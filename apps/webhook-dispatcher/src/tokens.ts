/** Injection token for the Redis client (no key prefix) the BullMQ queues and workers use. */
export const QUEUE_REDIS = Symbol('QUEUE_REDIS');
/** Injection token for the producer of `webhook.attempt` jobs. */
export const ATTEMPTS_QUEUE = Symbol('ATTEMPTS_QUEUE');
/** Injection token for the WebhookDispatcher. */
export const WEBHOOK_DISPATCHER = Symbol('WEBHOOK_DISPATCHER');
/** Injection token for the parsed configuration. */
export const DISPATCHER_CONFIG = Symbol('DISPATCHER_CONFIG');
