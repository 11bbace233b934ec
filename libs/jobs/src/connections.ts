import { createRedis, type Redis } from '@runplane/queue';

/**
 * The job engine's two Redis connections, named for what they guarantee. Redis runs the commands of one connection in
 * the order they were sent (ioredis keeps that order); commands on two connections have no order at all. Neither
 * connection may have a keyPrefix: BullMQ rejects one, and the engine keys under its prefix.
 *
 * - `queueOrdered` is the connection BullMQ's queue (webhook deliveries) uses. A command sent on it before a BullMQ call
 *   runs before that call's scripts, which the webhook outbox relies on.
 * - `queueFree` never carries a BullMQ command, so it is also free of the Lua commands BullMQ defines on its client,
 *   which ioredis copies into every pipeline it builds (dozens of them, in each `pipeline()`). It carries what
 *   needs no order with BullMQ: job records, takes and claims, reads, heartbeats, results, stream chunks, stop
 *   requests and wakes. Sending on it anything that must follow or precede a BullMQ command is a bug, however likely
 *   the order looks.
 */
export interface EngineConnections {
  /** Ordered with BullMQ's scripts: BullMQ's own connection. */
  queueOrdered: Redis;
  /** Free of BullMQ's commands, and so of any order with them. */
  queueFree: Redis;
}

/*
 * Both connections write the commands of one event-loop turn with one socket write (`coalesceWrites`), and neither is
 * auto-pipelined: ioredis sends a connection's next auto-pipeline only once the one before it has been answered, so
 * Node and Redis take turns instead of working at once (under `/run` load the job-router idled a quarter of the time;
 * see docs/benchmarks.md).
 */

/** Opens the connection BullMQ's queues and the engine's queue-ordered commands share (see {@link EngineConnections}). */
export function createQueueOrderedRedis(url: string): Redis {
  return createRedis(url, { coalesceWrites: true });
}

/**
 * Opens the connection that never carries a BullMQ command (see {@link EngineConnections}); other services' commands
 * that need no order with the queues may share it.
 */
export function createQueueFreeRedis(url: string): Redis {
  return createRedis(url, { coalesceWrites: true });
}
