import { newId } from '@runplane/db';
import { createQueue, createRedis, type Redis, WEBHOOK_ATTEMPTS_QUEUE, webhookAttemptsCatalog } from '@runplane/queue';
import { getFreePort, pollUntil } from '@runplane/testing';
import { UndiciWebhookSender, type WebhookRequest, type WebhookSender } from '@runplane/webhooks';
import { Webhook } from 'standardwebhooks';
import { type RecordedDelivery, startWebhookStack, type WebhookStack } from './harness';

// These tests start a gateway process and wait on real retry schedules.
jest.setTimeout(60_000);

const SPACING_MS = 200;

/** Sends only to loopback: a refusal the guard failed to make can never leave this machine. */
class LoopbackOnlySender implements WebhookSender {
  readonly destinations: string[] = [];
  private readonly inner = new UndiciWebhookSender();

  send(request: WebhookRequest) {
    this.destinations.push(request.destination.address);
    if (!['127.0.0.1', '::1'].includes(request.destination.address)) {
      throw new Error(`test safety net: refused to send to ${request.destination.address}`);
    }
    return this.inner.send(request);
  }
}

/** Starts of consecutive attempts, as recorded and as the receiver saw them, in ms. */
function gaps(delivery: RecordedDelivery, arrivals: number[]): { recorded: number[]; received: number[] } {
  const starts = delivery.attemptsMade.map((a) => a.startedAt.getTime());
  return {
    recorded: starts.slice(1).map((at, i) => at - starts[i]!),
    received: arrivals.slice(1).map((at, i) => at - arrivals[i]!),
  };
}

describe('webhook delivery (3 attempts, configured spacing, signed)', () => {
  let stack: WebhookStack;
  let redis: Redis;
  let closedPort: number;
  const sender = new LoopbackOnlySender();

  beforeAll(async () => {
    stack = await startWebhookStack('webhook-delivery');
    stack.receiver.secret = await stack.fetchSecret();
    closedPort = await getFreePort();
    redis = createRedis('redis://127.0.0.1:6379');
    await stack.startDispatcher(
      {
        WEBHOOK_ATTEMPT_SPACING_MS: String(SPACING_MS),
        WEBHOOK_ATTEMPT_TIMEOUT_MS: '5000',
        WEBHOOK_ALLOWED_HOSTS: `${stack.receiver.hostPort},127.0.0.1:${closedPort}`,
        // Overdue deliveries are looked for often here; re-queueing is idempotent, so the other tests see no difference.
        WEBHOOK_SWEEP_INTERVAL_MS: '200',
        WEBHOOK_SWEEP_GRACE_MS: '1000',
      },
      { sender },
    );
  });
  afterAll(async () => {
    redis.disconnect();
    await stack.close();
  });

  it.each([0, 1, 2])('delivers on attempt N+1 when the receiver fails the first N = %i calls', async (failures) => {
    const path = `/fails-${failures}`;
    stack.receiver.failFirst(path, failures);
    const jobId = await stack.deliver(stack.receiver.url(path));
    const delivery = await stack.waitForDelivery(jobId, 'SUCCEEDED');

    expect(delivery).toMatchObject({
      attempts: failures + 1,
      lastStatusCode: 200,
      lastError: null,
      nextAttemptAt: null,
      body: null,
    });
    expect(delivery.deliveredAt).toBeInstanceOf(Date);
    expect(delivery.attemptsMade.map((a) => [a.attempt, a.statusCode, a.error])).toEqual([
      ...Array.from({ length: failures }, (_, i) => [i + 1, 500, 'HTTP 500']),
      [failures + 1, 200, null],
    ]);
    const calls = stack.receiver.callsTo(path);
    expect(calls.map((c) => c.status)).toEqual([...Array(failures).fill(500), 200]);
    // Every call carries the same Standard Webhooks id, a signature valid under the account's secret and the /status body.
    expect(new Set(calls.map((c) => c.webhookId))).toEqual(new Set([`msg_${delivery.id}`]));
    for (const call of calls) {
      expect(call.verified).toBe(true);
      expect(call.headers['content-type']).toBe('application/json');
      expect(JSON.parse(call.body)).toEqual({
        id: jobId,
        status: 'COMPLETED',
        delayTime: 12,
        executionTime: 340,
        output: { answer: 42 },
        retries: 0,
      });
    }
    for (const gap of [
      ...gaps(
        delivery,
        calls.map((c) => c.at),
      ).recorded,
      ...gaps(
        delivery,
        calls.map((c) => c.at),
      ).received,
    ]) {
      expect(gap).toBeGreaterThanOrEqual(SPACING_MS);
    }
  });

  it('delivers a PENDING delivery whose attempt job was lost from the queue, once, when the sweep finds it overdue', async () => {
    const path = '/lost-attempt';
    const jobId = `job-${newId()}`;
    const body = JSON.stringify({ id: jobId, status: 'COMPLETED', output: { lost: false }, retries: 0 });
    // Recorded by an earlier dispatcher whose queue write never happened (or Redis lost it): no attempt job exists.
    await stack.db.webhookDelivery.create({
      data: {
        id: newId(), accountId: stack.accountId, endpointId: stack.endpointId, jobId, url: stack.receiver.url(path),
        sourceKey: `lost-${jobId}`, body, nextAttemptAt: new Date(Date.now() - 600_000),
      },
    }); // prettier-ignore
    const delivery = await stack.waitForDelivery(jobId, 'SUCCEEDED');
    expect(delivery).toMatchObject({ attempts: 1, lastStatusCode: 200 });
    expect(stack.receiver.callsTo(path).map((call) => [call.status, call.body, call.verified])).toEqual([
      [200, body, true],
    ]);
  });

  it('makes exactly 3 attempts, spaced by the configured spacing, then records FAILED', async () => {
    const path = '/fails-3';
    stack.receiver.failFirst(path, 3);
    const jobId = await stack.deliver(stack.receiver.url(path));
    const delivery = await stack.waitForDelivery(jobId, 'FAILED');

    expect(delivery).toMatchObject({
      attempts: 3,
      maxAttempts: 3,
      lastStatusCode: 500,
      lastError: 'HTTP 500',
      nextAttemptAt: null,
      deliveredAt: null,
      body: null,
    });
    expect(delivery.attemptsMade.map((a) => a.attempt)).toEqual([1, 2, 3]);
    for (const attempt of delivery.attemptsMade) {
      expect(attempt).toMatchObject({
        jobId,
        url: stack.receiver.url(path),
        statusCode: 500,
        error: 'HTTP 500',
        responseExcerpt: 'receiver says no',
      });
      expect(attempt.durationMs).toEqual(expect.any(Number));
      expect(attempt.finishedAt).toBeInstanceOf(Date);
    }
    const calls = stack.receiver.callsTo(path);
    expect(calls).toHaveLength(3);
    const { recorded, received } = gaps(
      delivery,
      calls.map((c) => c.at),
    );
    for (const gap of [...recorded, ...received]) expect(gap).toBeGreaterThanOrEqual(SPACING_MS);
    // Nothing is left queued: no fourth attempt will come.
    const attempts = createQueue(webhookAttemptsCatalog, WEBHOOK_ATTEMPTS_QUEUE, {
      redis,
      prefix: stack.env.REDIS_PREFIX!,
    });
    await pollUntil(async () => (await attempts.pendingCount()) === 0, { description: 'attempt queue drained' });
    await attempts.close();
    expect(stack.receiver.callsTo(path)).toHaveLength(3);
  });

  it('retries a receiver that refuses connections, recording the error', async () => {
    const jobId = await stack.deliver(`http://127.0.0.1:${closedPort}/gone`);
    const delivery = await stack.waitForDelivery(jobId, 'FAILED');
    expect(delivery.attempts).toBe(3);
    expect(delivery.lastStatusCode).toBeNull();
    expect(delivery.lastError).toMatch(/ECONNREFUSED/);
    expect(delivery.attemptsMade.map((a) => a.statusCode)).toEqual([null, null, null]);
  });

  it('does not follow redirects: a 3xx counts as a failed attempt', async () => {
    const path = '/moved';
    stack.receiver.failFirst(path, 3, 302, { location: stack.receiver.url('/redirect-target') });
    const jobId = await stack.deliver(stack.receiver.url(path));
    const delivery = await stack.waitForDelivery(jobId, 'FAILED');
    expect(delivery.attemptsMade.map((a) => [a.statusCode, a.error])).toEqual([
      [302, 'HTTP 302'],
      [302, 'HTTP 302'],
      [302, 'HTTP 302'],
    ]);
    expect(stack.receiver.callsTo('/redirect-target')).toEqual([]);
  });

  describe('unsafe URLs are refused once, with the reason, and never retried', () => {
    it.each([
      [
        '127.0.0.1 on a port not allowed',
        () => `http://127.0.0.1:${closedPort + 1}/hook`,
        /^refused: 127\.0\.0\.1 is in a non-public range \(loopback\)$/,
      ],
      [
        'a private 10.x address',
        () => 'http://10.0.0.1/hook',
        /^refused: 10\.0\.0\.1 is in a non-public range \(private\)$/,
      ],
      [
        'the cloud metadata address',
        () => 'http://169.254.169.254/latest/meta-data/',
        /^refused: 169\.254\.169\.254 is a cloud metadata address$/,
      ],
      ['IPv6 loopback', () => 'http://[::1]:8080/hook', /^refused: ::1 is in a non-public range \(loopback\)$/],
      ['IPv4-mapped IPv6 loopback', () => 'http://[::ffff:127.0.0.1]:8080/hook', /^refused: .* \(loopback\)$/],
      [
        'a host name resolving to loopback',
        () => stack.receiver.url('/via-name', 'localhost'),
        /^refused: localhost resolves to (127\.0\.0\.1|::1) is in a non-public range \(loopback\)$/,
      ],
      [
        'a scheme other than http(s)',
        () => 'ftp://hooks.example.com/hook',
        /^refused: only http and https URLs are called, not ftp$/,
      ],
    ])('%s', async (_what, url, reason) => {
      const sentBefore = sender.destinations.length;
      const callsBefore = stack.receiver.calls.length;
      const jobId = await stack.deliver(url());
      const delivery = await stack.waitForDelivery(jobId, 'FAILED');
      expect(delivery.attempts).toBe(1);
      expect(delivery.lastError).toMatch(reason);
      expect(delivery.attemptsMade).toHaveLength(1);
      expect(delivery.attemptsMade[0]).toMatchObject({
        attempt: 1,
        statusCode: null,
        durationMs: null,
        responseExcerpt: null,
      });
      expect(delivery.attemptsMade[0]!.error).toMatch(reason);
      expect(sender.destinations.length).toBe(sentBefore);
      expect(stack.receiver.calls.length).toBe(callsBefore);
    });
  });

  it('signs with the rotated secret after a rotation; the old secret no longer verifies', async () => {
    const old = stack.receiver.secret;
    const fresh = await stack.rotateSecret();
    expect(fresh).not.toBe(old);
    stack.receiver.secret = fresh;
    const jobId = await stack.deliver(stack.receiver.url('/after-rotation'));
    await stack.waitForDelivery(jobId, 'SUCCEEDED');
    const [call] = stack.receiver.callsTo('/after-rotation');
    expect(call?.verified).toBe(true);
    expect(() => new Webhook(old).verify(call!.body, call!.headers as Record<string, string>)).toThrow();
  });
});
