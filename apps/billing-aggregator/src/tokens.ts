/** Injection token for the UsageAggregator. */
export const USAGE_AGGREGATOR = Symbol('USAGE_AGGREGATOR');
/** Injection token for the Redis client (no key prefix) the usage consumer runs on. */
export const QUEUE_REDIS = Symbol('QUEUE_REDIS');
/** Injection token for the aggregator's settings. */
export const AGGREGATOR_SETTINGS = Symbol('AGGREGATOR_SETTINGS');
