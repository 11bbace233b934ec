import { pollUntil, signalProcessGroup, stopProcessGroup } from '@runplane/testing';
import { startWebhookStack, type WebhookStack } from './harness';
import type { ReceivedCall } from './receiver';

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

    const second = await stack.spawnDispatcher(env);
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
    await stopProcessGroup(second, 5_000);
  });

  it('sends again the requests it was killed in the middle of, each copy with the same webhook-id and signed', async () => {
    await burstKilledInFlight(stack);
  }, 300_000);
});

/** Jobs of the burst; the receiver answers the first ANSWERED_BEFORE_KILL of their requests and holds the rest. */
const BURST = 200;
const ANSWERED_BEFORE_KILL = 60;
/** Attempts one dispatcher runs at once: this many requests are in flight, held by the receiver, at the kill. */
const CONCURRENCY = 10;

/**
 * A dispatcher process is SIGKILLed while CONCURRENCY of its requests wait for the receiver's answer, amid a burst of
 * BURST deliveries; a new process takes over. Every job's webhook arrives (at least once), and the requests cut off
 * by the kill are sent again as the same message: the same webhook-id, body and valid signature, so a receiver can
 * drop the second copy.
 */
async function burstKilledInFlight(stack: WebhookStack): Promise<void> {
  const firstEnv = { WEBHOOK_CONCURRENCY: String(CONCURRENCY), WEBHOOK_ATTEMPT_TIMEOUT_MS: '300000' };
  const first = await stack.spawnDispatcher(firstEnv);
  stack.receiver.holdAfter(ANSWERED_BEFORE_KILL);
  const jobs: { jobId: string; path: string }[] = [];
  for (let i = 0; i < BURST; i += 1) {
    const path = `/burst-${i}`;
    jobs.push({ jobId: await stack.deliver(stack.receiver.url(path)), path });
  }
  // Every attempt slot of the dispatcher holds a request the receiver has not answered.
  await pollUntil(() => stack.receiver.held().length >= CONCURRENCY, {
    timeoutMs: 60_000,
    description: 'requests in flight',
  });
  signalProcessGroup(first.pid, 'SIGKILL');
  expect(await first.exited).toMatchObject({ signal: 'SIGKILL' });
  const cutOff = new Set(stack.receiver.held().map((call) => call.path));
  expect(cutOff.size).toBe(CONCURRENCY);
  stack.receiver.answerAll();

  const second = await stack.spawnDispatcher({ WEBHOOK_CONCURRENCY: String(CONCURRENCY) });
  const jobIds = jobs.map((job) => job.jobId);
  await pollUntil(
    async () =>
      (await stack.db.webhookDelivery.count({ where: { jobId: { in: jobIds }, status: 'SUCCEEDED' } })) === BURST,
    { timeoutMs: 240_000, intervalMs: 250, description: 'every delivery of the burst SUCCEEDED' },
  );
  const deliveries = await stack.db.webhookDelivery.findMany({
    where: { jobId: { in: jobIds } },
    include: { attemptsMade: true },
  });
  expect(deliveries).toHaveLength(BURST);
  const byJob = new Map(deliveries.map((delivery) => [delivery.jobId, delivery]));

  const copies = jobs.map((job) => ({ job, calls: stack.receiver.callsTo(job.path) }));
  const completed = copies.filter(({ calls }) => calls.some((call) => call.status >= 200 && call.status < 300)).length;
  const duplicated = copies.filter(({ calls }) => calls.length > 1);
  const lost = BURST - completed;
  console.log(
    `webhook crash test: accepted ${BURST} / completed ${completed} / lost ${lost} / duplicated ${duplicated.length}`,
  );
  expect(lost).toBe(0);
  // The kill landed on requests in flight: each of them was sent again, so duplicates did occur.
  expect(duplicated.length).toBeGreaterThanOrEqual(1);
  for (const path of cutOff) expect(stack.receiver.callsTo(path).length).toBeGreaterThanOrEqual(2);

  for (const { job, calls } of copies) {
    const delivery = byJob.get(job.jobId)!;
    expectSameMessage(calls, `msg_${delivery.id}`);
    // A copy sent again is the same attempt, not a new one: one attempt recorded, answered 200.
    expect(delivery.attemptsMade.map((attempt) => [attempt.attempt, attempt.statusCode])).toEqual([[1, 200]]);
  }
  await stopProcessGroup(second, 5_000);
}

/** Every copy of one delivery carries the delivery's webhook-id and body, under a signature the receiver verified. */
function expectSameMessage(calls: ReceivedCall[], webhookId: string): void {
  expect(calls.length).toBeGreaterThanOrEqual(1);
  for (const call of calls) {
    expect(call).toMatchObject({ webhookId, verified: true, body: calls[0]!.body });
  }
}
