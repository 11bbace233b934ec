import { createRedis, type Redis } from '@runplane/queue';

/**
 * The job engine's two Redis connections, named for what they guarantee. Redis runs the commands of one connection in
 * the order they were sent (ioredis keeps that order, auto-pipelined or not); commands on two connections have no
 * order at all. Neither connection may have a keyPrefix: BullMQ rejects one, and the engine keys under its prefix.
 *
 * - `queueOrdered` is the connection BullMQ's queue (webhook deliveries) uses. A command sent on it before a BullMQ call
 *   runs before that call's scripts, which the webhook outbox relies on.
 * - `queueFree` never carries a BullMQ command, so it is also free of the Lua commands BullMQ defines on its client,
 *   which ioredis copies into every pipeline it builds (dozens of them, in each auto-pipelined turn). It carries what
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

/**
 * Opens the connection BullMQ's queues and the engine's queue-ordered commands share (see {@link EngineConnections}).
 * Auto-pipelined: the commands of all requests in flight go out as one write per event-loop turn.
 */
export function createQueueOrderedRedis(url: string): Redis {
  return createRedis(url, { autoPipelining: true });
}

/**
 * Opens the connection that never carries a BullMQ command (see {@link EngineConnections}); other services' commands
 * that need no order with the queues may share it. Auto-pipelined like the other: a command issued in a setImmediate
 * callback waits for the next turn's immediates before it is written.
 */
export function createQueueFreeRedis(url: string): Redis {
  return createRedis(url, { autoPipelining: true });
}
