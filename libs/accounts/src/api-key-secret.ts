import { hash, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'rpl_';
const SECRET_PATTERN = /^rpl_[A-Za-z0-9_-]{43}$/;
const VISIBLE_LENGTH = SECRET_PREFIX.length + 8;

/** A freshly generated API key: the secret (shown once), the visible prefix and the hash we store. */
export interface GeneratedSecret {
  secret: string;
  prefix: string;
  hash: string;
}

/** sha-256 hex of a secret (one call, no Hash object); keys are 256-bit random, so a plain hash is not brute-forceable. */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** Generates `rpl_` + 32 random bytes in base64url. */
export function generateSecret(): GeneratedSecret {
  const secret = SECRET_PREFIX + randomBytes(32).toString('base64url');
  return { secret, prefix: secret.slice(0, VISIBLE_LENGTH), hash: hashSecret(secret) };
}

/** True when a string has the shape of a Runplane API key (checked before any database lookup). */
export function isWellFormedSecret(value: string): boolean {
  return SECRET_PATTERN.test(value);
}
