import type { Random } from './random';

/** Path segments no id of ours looks like: traversal, NUL and control characters, bad or odd percent-encoding. */
export const ODD_SEGMENTS: readonly string[] = [
  'x',
  '..',
  '%2e%2e%2f',
  '%2F',
  'a'.repeat(101),
  'a'.repeat(2_000),
  '%00',
  'x%00y',
  '%01',
  '%1F',
  '%7F',
  '%0A',
  '%20',
  '%F0%9F%92%A5',
  '%E0%A4%A',
  '%',
  '%zz',
  '%FF',
  '%C0%AF',
  "'%3B%20drop%20table%20pods%3B--",
  '-1',
  '0',
  'null',
  'undefined',
  '__proto__',
  'constructor',
  '%7B%7D',
  '*',
  '~',
  'ü',
];

/** Query values: wrong types, out of range, NUL and control characters, bad percent-encoding, huge. */
export const ODD_QUERY_VALUES: readonly string[] = [
  '',
  'x',
  'true',
  'false',
  '-1',
  '0',
  '1',
  '1.5',
  '1e308',
  '-1e308',
  'NaN',
  'Infinity',
  '9'.repeat(40),
  '0x10',
  '%00',
  'a%00b',
  '%01',
  '%7F',
  '%zz',
  '%E0%A4%A',
  '%',
  'a'.repeat(5_000),
  '[]',
  '%5B%5D',
  '{}',
  'null',
  '%20',
  '2024-99-99T99:99:99Z',
  'NOT_AN_ENUM',
  'ALL',
  'COMPLETED',
  '60000',
  '1000',
  '300001',
];

/** Bodies that are not JSON, or JSON of the wrong kind, or JSON meant to poison prototypes. */
export const BROKEN_BODIES: readonly string[] = [
  '{',
  '[',
  '{"a":}',
  '{"a":1,}',
  '{"a" 1}',
  "{'a':1}",
  'null',
  '"str"',
  '12',
  '-0',
  'true',
  '[]',
  '[1,2]',
  'NaN',
  '\u0000',
  '{"a":"\u0000"}',
  ' ',
  '\ufeff{}',
  '{"a":1}garbage',
  '{"a":"\\ud800"}',
  '{"a":"\\u00"}',
  '{"__proto__":{"x":1}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '{"a":1e999}',
  '{"a":-1e999}',
  '{"a":'.repeat(50),
  'a=1&b=2',
  '<xml/>',
];

/** Content types sent with bodies: JSON, the types RunPod's worker SDK uses, and ones no route takes. */
export const CONTENT_TYPES: readonly (string | undefined)[] = [
  'application/json',
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/xml',
  'a/b/c',
  'application/octet-stream',
  'application/merge-patch+json',
  undefined,
];

/** Scalars of every JSON type, at and past every edge. */
const SCALARS: readonly unknown[] = [
  null,
  true,
  false,
  -1,
  0,
  1,
  2,
  1.5,
  -0.5,
  1e308,
  -1e308,
  2 ** 53 + 2,
  2 ** 63,
  -(2 ** 63),
  1e-320,
  100_000,
  7 * 24 * 3_600_000 + 1,
  '',
  ' ',
  'x',
  'a\u0000b',
  '\u0000',
  '\u0001\u001f\u007f',
  '\u2028\u2029',
  '\ud800',
  '\u{1F4A5}',
  'NOT_AN_ENUM',
  'ALL',
  'READ_ONLY',
  'COMPLETED',
  '12:00',
  '2024-99-99T99:99:99Z',
  '2024-01-01T00:00:00Z',
  'http://127.0.0.1:1/hook',
  'https://example.com/x',
  'javascript:alert(1)',
  'file:///etc/passwd',
  '../../etc/passwd',
  '${jndi:ldap://x}',
  '%00',
  "'; drop table pods;--",
  'NVIDIA GeForce RTX 4090',
  'runpod/echo:1',
  'a'.repeat(256),
  'a'.repeat(10_000),
];

/** JSON text of arrays nested `depth` deep, written out (JSON.stringify itself overflows the stack on deep values). */
export function nestedJson(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

/** A value of any JSON type, with objects keyed by the given field names; `depth` bounds nesting. */
export function fuzzValue(random: Random, fields: readonly string[], depth = 0): unknown {
  const roll = random.next();
  if (depth >= 3 || roll < 0.7) return random.pick(SCALARS);
  if (roll < 0.8) return Array.from({ length: random.below(4) }, () => fuzzValue(random, fields, depth + 1));
  if (roll < 0.82) return 'x'.repeat(random.pick([70_000, 300_000]));
  return fuzzObject(random, fields, depth + 1);
}

/**
 * An object with a random subset of the given fields (so some are missing) and sometimes an unknown one; nested
 * objects take a few of them, so a body stays small however many fields there are.
 */
export function fuzzObject(random: Random, fields: readonly string[], depth = 0): Record<string, unknown> {
  const keys =
    depth === 0
      ? random.some(fields, 0.5).slice(0, 16)
      : Array.from({ length: random.below(4) }, () => random.pick(fields));
  if (random.chance(0.3))
    keys.push(random.pick(['unknownField', '__proto__', 'constructor', '', '\u0000', 'a'.repeat(300)]));
  const object: Record<string, unknown> = {};
  for (const key of keys)
    Object.defineProperty(object, key, {
      value: fuzzValue(random, fields, depth),
      enumerable: true,
      configurable: true,
      writable: true,
    });
  return object;
}
