import { UndiciWebhookSender, type WebhookRequest, type WebhookSender } from '@runplane/webhooks';
import { startWebhookStack, type WebhookStack } from './harness';

// These tests start a gateway process and wait on real retry schedules.
jest.setTimeout(60_000);

/** Counts the requests one dispatcher instance sends. */
class CountingSender implements WebhookSender {
  sent = 0;
  private readonly inner = new UndiciWebhookSender();

  send(request: WebhookRequest) {
    this.sent += 1;
    return this.inner.send(request);
  }
}

const DELIVERIES = 20;

describe('two webhook-dispatcher instances on the same queues', () => {
  let stack: WebhookStack;
  const senders = [new CountingSender(), new CountingSender()];

  beforeAll(async () => {
    stack = await startWebhookStack('webhook-replicas');
    stack.receiver.secret = await stack.fetchSecret();
    const env = { WEBHOOK_ATTEMPT_SPACING_MS: '100', WEBHOOK_CONCURRENCY: '4' };
    for (const sender of senders) await stack.startDispatcher(env, { sender });
  });
  afterAll(() => stack.close());

  it('delivers each attempt exactly once between them', async () => {
    const jobs: { jobId: string; path: string; failures: number }[] = [];
    for (let i = 0; i < DELIVERIES; i += 1) {
      const path = `/replica-${i}`;
      const failures = i % 4;
      stack.receiver.failFirst(path, failures);
      jobs.push({ jobId: await stack.deliver(stack.receiver.url(path)), path, failures });
    }
    let expectedCalls = 0;
    for (const job of jobs) {
      const delivered = job.failures < 3;
      const delivery = await stack.waitForDelivery(job.jobId, delivered ? 'SUCCEEDED' : 'FAILED');
      const attempts = delivered ? job.failures + 1 : 3;
      expectedCalls += attempts;
      expect(delivery.attemptsMade.map((a) => a.attempt)).toEqual(Array.from({ length: attempts }, (_, i) => i + 1));
      expect(stack.receiver.callsTo(job.path)).toHaveLength(attempts);
    }
    expect(stack.receiver.calls).toHaveLength(expectedCalls);
    // Both instances took part, and together they sent each attempt once.
    expect(senders[0]!.sent + senders[1]!.sent).toBe(expectedCalls);
    expect(senders[0]!.sent).toBeGreaterThan(0);
    expect(senders[1]!.sent).toBeGreaterThan(0);
  });
});
