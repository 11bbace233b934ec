import type { ApiAnswer } from '@runplane/testing';

/**
 * An echo endpoint for the autoscaling specs: one `gpuTypeId` GPU a worker (an RTX 4090 unless given), 0 to
 * `workersMax` (2 unless given) workers scaled on queue delay (1 s), idle workers removed after 2 s. Resolves with
 * its id.
 */
export async function createQueueDelayEndpoint(
  v1: (method: string, path: string, body?: unknown) => Promise<ApiAnswer>,
  template: { body: unknown },
  { gpuTypeId = 'NVIDIA GeForce RTX 4090', workersMax = 2 }: { gpuTypeId?: string; workersMax?: number } = {},
): Promise<string> {
  const endpoint = await v1('POST', '/endpoints', {
    name: 'echo',
    templateId: (template.body as { id: string }).id,
    gpuTypeIds: [gpuTypeId],
    gpuCount: 1,
    workersMin: 0,
    workersMax,
    idleTimeout: 2,
    scalerType: 'QUEUE_DELAY',
    scalerValue: 1,
  });
  expect(endpoint.status).toBe(200);
  return (endpoint.body as { id: string }).id;
}
