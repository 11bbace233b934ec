import { Webhook } from 'standardwebhooks';
import { failureOf, isDelivered, nextStep, type AttemptOutcome } from './policy';
import { generateSigningSecret, messageIdOf, signatureHeaders } from './signing';

const response = (statusCode: number): AttemptOutcome => ({ kind: 'response', statusCode, excerpt: '', durationMs: 5 });
const policy = { maxAttempts: 3, spacingMs: 10_000, timeoutMs: 10_000 };
const now = new Date('2026-11-21T12:00:00.000Z');

describe('delivery policy', () => {
  it.each([200, 201, 202, 204, 299])('counts HTTP %i as delivered', (status) => {
    expect(isDelivered(response(status))).toBe(true);
    expect(failureOf(response(status))).toBeNull();
    expect(nextStep(policy, 1, response(status), now)).toEqual({ kind: 'succeeded' });
  });

  it.each([199, 301, 302, 307, 400, 404, 429, 500, 503])('counts HTTP %i as a failure that is retried', (status) => {
    expect(isDelivered(response(status))).toBe(false);
    expect(failureOf(response(status))).toBe(`HTTP ${status}`);
    expect(nextStep(policy, 1, response(status), now)).toEqual({
      kind: 'retry',
      attempt: 2,
      at: new Date('2026-11-21T12:00:10.000Z'),
    });
  });

  it('retries a connection error or timeout until the last attempt, then fails', () => {
    const timeout: AttemptOutcome = { kind: 'error', error: 'timed out after 10000 ms', durationMs: 10_000 };
    expect(failureOf(timeout)).toBe('timed out after 10000 ms');
    expect(nextStep(policy, 2, timeout, now)).toMatchObject({ kind: 'retry', attempt: 3 });
    expect(nextStep(policy, 3, timeout, now)).toEqual({ kind: 'failed' });
    expect(nextStep({ ...policy, maxAttempts: 1 }, 1, timeout, now)).toEqual({ kind: 'failed' });
  });

  it('never retries a refused URL', () => {
    const refused: AttemptOutcome = { kind: 'refused', reason: '10.0.0.1 is in a non-public range (private)' };
    expect(failureOf(refused)).toBe('refused: 10.0.0.1 is in a non-public range (private)');
    expect(nextStep(policy, 1, refused, now)).toEqual({ kind: 'failed' });
  });

  it('spaces retries by the configured spacing', () => {
    expect(nextStep({ ...policy, spacingMs: 200 }, 1, response(500), now)).toEqual({
      kind: 'retry',
      attempt: 2,
      at: new Date('2026-11-21T12:00:00.200Z'),
    });
  });
});

describe('Standard Webhooks signing', () => {
  it('makes whsec_ secrets of 32 random bytes', () => {
    const secret = generateSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(generateSigningSecret()).not.toBe(secret);
  });

  it('signs id.timestamp.body so the reference verifier accepts it, and only with the same secret and body', () => {
    const secret = generateSigningSecret();
    const body = JSON.stringify({ id: 'job-1', status: 'COMPLETED', output: { text: 'héllo' } });
    const headers = signatureHeaders(secret, messageIdOf('d1'), new Date(), body);
    expect(headers['webhook-id']).toBe('msg_d1');
    expect(headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateSigningSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body.replace('job-1', 'job-2'), headers)).toThrow();
  });
});
