import { createPrismaClient, newId } from '@runplane/db';
import { createTestStores, type TestStores } from '@runplane/testing';
import { Webhook } from 'standardwebhooks';
import { WebhookDeliveriesRepository } from './deliveries.repository';
import { OrphanedWebhookError, WebhookDispatcher } from './dispatcher';
import type { WebhookRequest, WebhookSender } from './http-sender';
import type { AttemptOutcome } from './policy';
import { WebhookSecretsRepository } from './secrets.repository';
import { type SecretSealer, WebhookSecretsService } from './secrets.service';
import { WebhookUrlGuard } from './url-safety';

/** Answers from a script of outcomes and keeps the requests. */
class ScriptedSender implements WebhookSender {
  readonly requests: WebhookRequest[] = [];
  constructor(private readonly script: AttemptOutcome[]) {}

  async send(request: WebhookRequest): Promise<AttemptOutcome> {
    this.requests.push(request);
    return this.script.shift() ?? { kind: 'response', statusCode: 200, excerpt: 'ok', durationMs: 1 };
  }
}

/** Reversible stand-in for the apps' SecretBox, bound to the associated data like it. */
const box: SecretSealer = {
  seal: (plaintext, ad) => Buffer.from(`${ad}|${plaintext}`).toString('base64url'),
  open: (envelope, ad) =>
    Buffer.from(envelope, 'base64url')
      .toString('utf8')
      .slice(ad.length + 1),
};

const ok: AttemptOutcome = { kind: 'response', statusCode: 200, excerpt: 'ok', durationMs: 3 };
const boom: AttemptOutcome = { kind: 'response', statusCode: 503, excerpt: 'busy', durationMs: 3 };

describe('WebhookDispatcher (idempotent steps on Postgres)', () => {
  let stores: TestStores;
  let db: ReturnType<typeof createPrismaClient>;
  let accountId: string;
  let endpointId: string;
  const resolve = async () => [{ address: '93.184.215.14', family: 4 }];

  beforeAll(async () => {
    stores = await createTestStores('webhooks-dispatcher');
    db = stores.db;
    accountId = (await db.account.create({ data: { id: newId(), name: 'hooks' } })).id;
    const template = await db.template.create({
      data: { id: newId(), accountId, name: 't', imageName: 'i', isServerless: true },
    });
    endpointId = (await db.endpoint.create({ data: { id: newId(), accountId, name: 'e', templateId: template.id } }))
      .id;
  });
  afterAll(() => stores.close());

  function dispatcher(sender: WebhookSender) {
    const scheduled: [string, number, number][] = [];
    const requeued: [string, number, number][] = [];
    const secrets = new WebhookSecretsService(new WebhookSecretsRepository(db), box);
    const instance = new WebhookDispatcher({
      deliveries: new WebhookDeliveriesRepository(db),
      secrets,
      guard: new WebhookUrlGuard([], resolve),
      sender,
      schedule: async (deliveryId, attempt, delayMs) => void scheduled.push([deliveryId, attempt, delayMs]),
      requeue: async (deliveryId, attempt, delayMs) => void requeued.push([deliveryId, attempt, delayMs]),
      policy: { maxAttempts: 3, spacingMs: 10_000, timeoutMs: 1_000 },
    });
    return { instance, scheduled, requeued, secrets };
  }

  const request = (jobId = `job-${newId()}`) => ({
    endpointId,
    jobId,
    url: 'https://hooks.example.com/in',
    record: { id: jobId, status: 'COMPLETED' as const, output: { n: 1 }, retries: 0 },
  });

  it('records one delivery per request id, however often the request arrives, and queues its first attempt', async () => {
    const { instance, scheduled } = dispatcher(new ScriptedSender([]));
    const input = request();
    const first = await instance.accept(input, 'source-1');
    const again = await instance.accept(input, 'source-1');
    expect(again.id).toBe(first.id);
    expect(await db.webhookDelivery.count({ where: { sourceKey: 'source-1' } })).toBe(1);
    expect(first).toMatchObject({
      accountId,
      endpointId,
      status: 'PENDING',
      attempts: 0,
      maxAttempts: 3,
      body: JSON.stringify(input.record),
    });
    expect(scheduled.map(([id, attempt]) => [id, attempt])).toEqual([
      [first.id, 1],
      [first.id, 1],
    ]);
  });

  it('takes the account from the request, else from the endpoint; refuses a request with neither', async () => {
    const { instance } = dispatcher(new ScriptedSender([]));
    const named = await instance.accept({ ...request(), endpointId: 'deleted', accountId }, 'source-named');
    expect(named).toMatchObject({ accountId, endpointId: 'deleted' });
    await expect(instance.accept({ ...request(), endpointId: 'deleted' }, 'source-orphan')).rejects.toThrow(
      OrphanedWebhookError,
    );
  });

  it('runs an attempt once: a repeated job neither sends again nor skips the next attempt', async () => {
    const sender = new ScriptedSender([boom]);
    const { instance, scheduled, secrets } = dispatcher(sender);
    const delivery = await instance.accept(request(), 'source-2');
    scheduled.length = 0;

    await instance.attempt(delivery.id, 1);
    expect(sender.requests).toHaveLength(1);
    expect(scheduled).toEqual([[delivery.id, 2, 10_000]]);
    // The same job again (a crash after recording, before the queue acknowledged it): no second request, and the
    // next attempt is queued again under its deterministic id, which the queue ignores when it exists.
    await instance.attempt(delivery.id, 1);
    expect(sender.requests).toHaveLength(1);
    expect(scheduled.map(([, attempt]) => attempt)).toEqual([2, 2]);
    expect(scheduled[1]![2]).toBeGreaterThan(9_000);

    const row = await db.webhookDelivery.findUniqueOrThrow({
      where: { id: delivery.id },
      include: { attemptsMade: true },
    });
    expect(row).toMatchObject({ attempts: 1, status: 'PENDING', lastStatusCode: 503, lastError: 'HTTP 503' });
    expect(row.attemptsMade).toHaveLength(1);

    const signed = sender.requests[0]!;
    expect(signed.headers['webhook-id']).toBe(`msg_${delivery.id}`);
    expect(new Webhook(await secrets.current(accountId)).verify(signed.body, signed.headers)).toEqual(
      JSON.parse(signed.body),
    );
    expect(signed.destination).toMatchObject({ address: '93.184.215.14' });
  });

  it('sends again an attempt whose run died mid-request (at least once), as the same message, then moves on', async () => {
    const sender = new ScriptedSender([ok]);
    const { instance, secrets } = dispatcher(sender);
    const delivery = await instance.accept(request(), 'source-3');
    // A previous run claimed attempt 1 and died before recording its result.
    await new WebhookDeliveriesRepository(db).claimAttempt(delivery, 1, new Date(Date.now() - 60_000));
    await instance.attempt(delivery.id, 1);
    expect(sender.requests).toHaveLength(1);
    // The copy sent again carries the delivery's webhook-id, as the lost one did, signed over that id.
    const resent = sender.requests[0]!;
    expect(resent.headers['webhook-id']).toBe(`msg_${delivery.id}`);
    expect(new Webhook(await secrets.current(accountId)).verify(resent.body, resent.headers)).toEqual(
      JSON.parse(delivery.body!),
    );
    const row = await db.webhookDelivery.findUniqueOrThrow({
      where: { id: delivery.id },
      include: { attemptsMade: true },
    });
    expect(row).toMatchObject({ status: 'SUCCEEDED', attempts: 1, body: null });
    expect(row.attemptsMade).toHaveLength(1);
    expect(row.attemptsMade[0]).toMatchObject({ attempt: 1, statusCode: 200, responseExcerpt: 'ok' });
    expect(row.attemptsMade[0]!.finishedAt).toBeInstanceOf(Date);
  });

  it('ignores attempts of a finished delivery and attempts that are not next', async () => {
    const sender = new ScriptedSender([ok]);
    const { instance, scheduled } = dispatcher(sender);
    const delivery = await instance.accept(request(), 'source-4');
    await instance.attempt(delivery.id, 2);
    expect(sender.requests).toHaveLength(0);
    await instance.attempt(delivery.id, 1);
    scheduled.length = 0;
    await instance.attempt(delivery.id, 2);
    await instance.attempt('missing', 1);
    expect(sender.requests).toHaveLength(1);
    expect(scheduled).toEqual([]);
  });

  it('gives two concurrent first uses of the signing secret the same secret', async () => {
    const fresh = (await db.account.create({ data: { id: newId(), name: 'race' } })).id;
    const secrets = new WebhookSecretsService(new WebhookSecretsRepository(db), box);
    const [a, b] = await Promise.all([secrets.current(fresh), secrets.current(fresh)]);
    expect(a).toBe(b);
    expect(await secrets.current(fresh)).toBe(a);
  });

  it('queues again the next attempt of PENDING deliveries overdue past the grace, and only theirs', async () => {
    const { instance, requeued } = dispatcher(new ScriptedSender([boom]));
    const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
    const lost = await instance.accept(request(), `source-${newId()}`);
    const retrying = await instance.accept(request(), `source-${newId()}`);
    await instance.attempt(retrying.id, 1);
    const recent = await instance.accept(request(), `source-${newId()}`);
    const done = await instance.accept(request(), `source-${newId()}`);
    await instance.attempt(done.id, 1);
    await db.webhookDelivery.updateMany({
      where: { id: { in: [lost.id, retrying.id, done.id] } },
      data: { nextAttemptAt: minutesAgo(10) },
    });
    await db.webhookDelivery.update({ where: { id: recent.id }, data: { nextAttemptAt: minutesAgo(0.5) } });

    expect(await instance.resumeOverdue(60_000)).toBeGreaterThanOrEqual(2);
    const ours = requeued.filter(([id]) => [lost.id, retrying.id, recent.id, done.id].includes(id));
    // The lost first attempt and the second attempt of the failed-once delivery, both already due (delay <= 0).
    expect(ours.map(([id, attempt]) => [id, attempt]).sort()).toEqual(
      [
        [lost.id, 1],
        [retrying.id, 2],
      ].sort(),
    );
    expect(ours.every(([, , delayMs]) => delayMs <= -9 * 60_000)).toBe(true);
    expect(await db.webhookDelivery.findUniqueOrThrow({ where: { id: done.id } })).toMatchObject({
      status: 'SUCCEEDED',
    });
  });
});
