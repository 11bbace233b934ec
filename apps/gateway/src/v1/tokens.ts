/** Injection token for the gateway's ApiKeysService. */
export const API_KEYS_SERVICE = Symbol('API_KEYS_SERVICE');
/** Injection token for the gateway's RegistryAuthService. */
export const REGISTRY_AUTH_SERVICE = Symbol('REGISTRY_AUTH_SERVICE');
