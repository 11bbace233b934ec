import { newId } from '@runplane/db';

/** First path segments of the management API v2 Runplane serves (`/v2/pods`, `/v2/serverless`, ...). */
export const V2_MANAGEMENT_SEGMENTS: readonly string[] = [
  'pods',
  'serverless',
  'templates',
  'network-volumes',
  'registries',
  'catalog',
  'billing',
  'account',
  'clusters',
  'openapi.json',
];

/**
 * The v2 management segments and those of RunPod's v2 families Runplane may serve later. The job API shares
 * `/v2/{endpointId}/...`, so one host can send `/v2/<one of these>/...` to the gateway and every other `/v2/...` to
 * the job-router only while no endpoint id equals one of them.
 */
export const RESERVED_ENDPOINT_IDS: readonly string[] = [
  ...V2_MANAGEMENT_SEGMENTS,
  'tags',
  'sandboxes',
  'docs',
  // The job API's list of public models (GET /v2/public-endpoints).
  'public-endpoints',
];

/** Whether an id is a management segment (compared case-insensitively, as a router might). */
export function isReservedEndpointId(id: string): boolean {
  return RESERVED_ENDPOINT_IDS.includes(id.toLowerCase());
}

/** A new endpoint id: never a reserved management segment, whatever the generator returns. */
export function newEndpointId(generate: () => string = newId): string {
  for (;;) {
    const id = generate();
    if (!isReservedEndpointId(id)) return id;
  }
}
