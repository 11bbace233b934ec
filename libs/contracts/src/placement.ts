import { z } from 'zod';
import { redisConnectionOptions, type RedisConnectionOptions } from './redis-url';

/**
 * Placement RPC between the gateway and the scheduler (`@nestjs/microservices`, Redis transport). The gateway sends
 * a {@link PlacementRpcRequest} before it writes a Pod row; the scheduler reserves capacity for that Pod id (the
 * same id asked twice gets the same answer) and replies with a machine, or with `placed: false` and a message.
 */

/** The message pattern, namespaced by the deployment's Redis prefix so deployments sharing a Redis never cross. */
export function placementPattern(redisPrefix: string): string {
  return `${redisPrefix.replace(/:+$/, '')}:scheduler.placement.reserve`;
}

export const placementRpcRequest = z.object({
  podId: z.string().min(1),
  accountId: z.string().min(1),
  computeType: z.enum(['GPU', 'CPU']),
  /** Candidate GPU types, already priced, in priority order. */
  gpuTypeIds: z.array(z.string()),
  gpuTypePriority: z.enum(['availability', 'custom']),
  gpuCount: z.number().int().min(0),
  cloudType: z.enum(['SECURE', 'COMMUNITY', 'ALL']),
  dataCenterIds: z.array(z.string()),
  volumeDataCenterId: z.string().nullable(),
  /** Candidate CPU flavors in priority order. */
  cpuFlavorIds: z.array(z.string()),
  vcpuCount: z.number().int().min(0),
  memoryInGb: z.number().int().min(0),
});

export const placementRpcReply = z.discriminatedUnion('placed', [
  z.object({
    placed: z.literal(true),
    machineId: z.string(),
    gpuTypeId: z.string().nullable(),
    cpuFlavorId: z.string().nullable(),
    dataCenterId: z.string().nullable(),
  }),
  z.object({ placed: z.literal(false), message: z.string() }),
]);

export type PlacementRpcRequest = z.infer<typeof placementRpcRequest>;
export type PlacementRpcReply = z.infer<typeof placementRpcReply>;

/** Connection options of Nest's Redis transport from REDIS_URL: one server, or Sentinels and their master's name. */
export function redisTransportOptions(url: string): RedisConnectionOptions {
  return redisConnectionOptions(url);
}
