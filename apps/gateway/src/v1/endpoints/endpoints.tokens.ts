/** Injection token for the gateway's EndpointsService. */
export const ENDPOINTS_SERVICE = Symbol('ENDPOINTS_SERVICE');
