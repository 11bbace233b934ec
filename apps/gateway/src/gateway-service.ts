import type { ServiceOptions } from '@runplane/http';
import { v2EdgeErrors } from './v2/http/edge-problems';

/** How the gateway is served, by main() and by tests alike: v1's error shape, and v2's problem+json on /v2 paths. */
export const GATEWAY_SERVICE = {
  serviceName: 'gateway',
  errorStyle: 'v1',
  edgeErrors: v2EdgeErrors,
} as const satisfies Pick<ServiceOptions, 'serviceName' | 'errorStyle' | 'edgeErrors'>;
