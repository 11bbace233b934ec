/** Injection token for the gateway's PublicEndpointsService. */
export const PUBLIC_ENDPOINTS_SERVICE = Symbol('PUBLIC_ENDPOINTS_SERVICE');
