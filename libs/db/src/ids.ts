import { randomBytes, randomUUID } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
// Largest multiple of the alphabet size that fits a byte: bytes at or above it are discarded so
// every character is equally likely.
const UNBIASED_LIMIT = 256 - (256 % ALPHABET.length);

// Any character: testing a string against it makes V8 read, and so flatten, the string.
const ANY_CHARACTER = /[^]/;

/**
 * `value` as one flat string. A string built by concatenation (randomUUID()'s answer among them, about twenty pieces)
 * is kept by V8 as a tree of its pieces until something reads its characters: about 490 bytes for a UUID, against
 * about 70 flat. Ids held while a request or a job waits are flattened as they are made.
 */
export function flatString(value: string): string {
  ANY_CHARACTER.test(value);
  return value;
}

/** A random UUID (v4) as one flat string (see {@link flatString}). */
export function randomUuid(): string {
  return flatString(randomUUID());
}

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
  return flatString(id);
}
