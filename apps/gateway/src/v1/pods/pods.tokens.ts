/** Injection token for the gateway's PodsService. */
export const PODS_SERVICE = Symbol('PODS_SERVICE');
