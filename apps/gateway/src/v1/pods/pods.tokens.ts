/** Injection token for the gateway's PodsService. */
export const PODS_SERVICE = Symbol('PODS_SERVICE');
/** Injection token for the placement client Pods are created with. */
export const PLACEMENT_CLIENT = Symbol('PLACEMENT_CLIENT');
