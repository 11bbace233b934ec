import { pollUntil, signalProcessGroup } from '@runplane/testing';
import { startWebhookStack, type WebhookStack } from './harness';

// These tests start a gateway process and wait on real retry schedules.
jest.setTimeout(120_000);

/**
 * A dispatcher process is SIGKILLed while its deliveries wait between attempts (the next attempts exist only as
 * delayed queue jobs), then a new process starts: every remaining attempt happens, none is lost and no attempt
 * number reaches the receiver twice.
 */
const DELIVERIES = 6;
const SPACING_MS = 2_000;

describe('webhook-dispatcher killed mid-schedule', () => {
  let stack: WebhookStack;

  beforeAll(async () => {
    stack = await startWebhookStack('webhook-crash');
    stack.receiver.secret = await stack.fetchSecret();
  });
  afterAll(() => stack.close());

  it('resumes the schedule after a restart without losing or repeating attempts', async () => {
    const env = { WEBHOOK_ATTEMPT_SPACING_MS: String(SPACING_MS), WEBHOOK_ATTEMPT_TIMEOUT_MS: '5000' };
    const first = await stack.spawnDispatcher(env);
    // Half the receivers fail twice (delivered on attempt 3), half fail three times (FAILED after attempt 3).
    const jobs: { jobId: string; path: string; failures: number }[] = [];
    for (let i = 0; i < DELIVERIES; i += 1) {
      const path = `/crash-${i}`;
      const failures = i % 2 === 0 ? 2 : 3;
      stack.receiver.failFirst(path, failures);
      jobs.push({ jobId: await stack.deliver(stack.receiver.url(path)), path, failures });
    }

    // Kill once every delivery has made its first attempt and waits for its second.
    await pollUntil(
      async () => {
        const rows = await stack.db.webhookDelivery.findMany({ where: { endpointId: stack.endpointId } });
        return rows.length === DELIVERIES && rows.every((row) => row.attempts === 1 && row.status === 'PENDING');
      },
      { timeoutMs: 30_000, intervalMs: 20, description: 'first attempts recorded' },
    );
    signalProcessGroup(first.pid, 'SIGKILL');
    expect(await first.exited).toMatchObject({ signal: 'SIGKILL' });
    const callsAtKill = stack.receiver.calls.length;
    expect(callsAtKill).toBeGreaterThanOrEqual(DELIVERIES);
    expect(callsAtKill).toBeLessThan(DELIVERIES * 3);

    await stack.spawnDispatcher(env);
    for (const job of jobs) {
      const delivery = await stack.waitForDelivery(job.jobId, job.failures === 2 ? 'SUCCEEDED' : 'FAILED', 60_000);
      expect(delivery.attempts).toBe(3);
      expect(delivery.attemptsMade.map((a) => [a.attempt, a.statusCode])).toEqual([
        [1, 500],
        [2, 500],
        [3, job.failures === 2 ? 200 : 500],
      ]);
      // Exactly one request per attempt number reached the receiver, all signed.
      const calls = stack.receiver.callsTo(job.path);
      expect(calls.map((c) => c.status)).toEqual([500, 500, job.failures === 2 ? 200 : 500]);
      expect(calls.every((c) => c.verified)).toBe(true);
      const starts = delivery.attemptsMade.map((a) => a.startedAt.getTime());
      expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(SPACING_MS);
      expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(SPACING_MS);
    }
  });
});
