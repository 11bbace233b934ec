/** Injection token of the gateway's S3KeysService (v1 `/s3keys` and v2 `/account/s3-keys`). */
export const S3_KEYS_SERVICE = Symbol('S3_KEYS_SERVICE');
