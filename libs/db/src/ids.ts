import { randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
// Largest multiple of the alphabet size that fits a byte: bytes at or above it are discarded so
// every character is equally likely.
const UNBIASED_LIMIT = 256 - (256 % ALPHABET.length);

/**
 * A crypto-random opaque id of lowercase letters and digits (URL-safe), like "xedezhzb9la3ye".
 * 14 characters carry ~72 bits, plenty to never collide.
 */
export function newId(length = 14): string {
  if (!Number.isInteger(length) || length < 1)
    throw new RangeError(`id length must be a positive integer, got ${length}`);
  let id = '';
  while (id.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= UNBIASED_LIMIT) continue;
      id += ALPHABET[byte % ALPHABET.length];
      if (id.length === length) break;
    }
  }
  return id;
}
