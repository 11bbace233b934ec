import { ValidationError } from '@runplane/contracts';
import { newJobId, resolveJobPolicy, syncRetentionMs } from './policy';
import { MAX_STREAM_CHUNK_BYTES, splitStreamOutput } from './stream-chunks';

describe('resolveJobPolicy', () => {
  it('defaults to 600000 ms, 24 h, normal priority', () => {
    expect(resolveJobPolicy(undefined)).toEqual({ executionTimeoutMs: 600_000, ttlMs: 86_400_000, lowPriority: false });
  });

  it('prefers the job’s executionTimeout, then the endpoint’s', () => {
    expect(resolveJobPolicy({}, 120_000).executionTimeoutMs).toBe(120_000);
    expect(resolveJobPolicy({ executionTimeout: 5_000 }, 120_000).executionTimeoutMs).toBe(5_000);
    expect(resolveJobPolicy({ ttl: 10_000, lowPriority: true })).toMatchObject({ ttlMs: 10_000, lowPriority: true });
  });

  it.each([
    [{ executionTimeout: 4_999 }, /^policy\.executionTimeout: /],
    [{ executionTimeout: 7 * 86_400_000 + 1 }, /^policy\.executionTimeout: /],
    [{ executionTimeout: 5_000.5 }, /^policy\.executionTimeout: /],
    [{ ttl: 9_999 }, /^policy\.ttl: /],
    [{ ttl: 7 * 86_400_000 + 1 }, /^policy\.ttl: /],
  ])('refuses %p', (input, message) => {
    expect(() => resolveJobPolicy(input)).toThrow(ValidationError);
    expect(() => resolveJobPolicy(input)).toThrow(message);
  });

  it('keeps /runsync results 1 min, up to 5 min for a longer wait', () => {
    expect(syncRetentionMs(1_000)).toBe(60_000);
    expect(syncRetentionMs(120_000)).toBe(120_000);
    expect(syncRetentionMs(300_000)).toBe(300_000);
    expect(syncRetentionMs(900_000)).toBe(300_000);
  });

  it('makes ids <uuid>-<region> and sync-<uuid>-<region>', () => {
    expect(newJobId('u1', false)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}-u1$/);
    expect(newJobId('e2', true)).toMatch(/^sync-[0-9a-f-]{36}-e2$/);
  });
});

describe('splitStreamOutput', () => {
  it('keeps small outputs whole', () => {
    expect(splitStreamOutput({ a: 1 })).toEqual(['{"a":1}']);
    expect(splitStreamOutput(null)).toEqual(['null']);
  });

  it('splits long arrays into sub-arrays within the limit, in order', () => {
    const items = Array.from({ length: 100 }, (_, i) => 'x'.repeat(30) + i);
    const pieces = splitStreamOutput(items, 400).map((piece) => JSON.parse(piece) as string[]);
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) expect(Buffer.byteLength(JSON.stringify(piece))).toBeLessThanOrEqual(400);
    expect(pieces.flat()).toEqual(items);
  });

  it('splits long strings with escapes without exceeding the limit', () => {
    const text = '"\n😀'.repeat(MAX_STREAM_CHUNK_BYTES / 4);
    const pieces = splitStreamOutput(text);
    for (const piece of pieces) expect(Buffer.byteLength(piece)).toBeLessThanOrEqual(MAX_STREAM_CHUNK_BYTES);
    expect(pieces.map((piece) => JSON.parse(piece) as string).join('')).toBe(text);
  });
});
