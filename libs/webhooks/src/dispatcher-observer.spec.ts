import { newId } from '@runplane/db';
import { createTestStores, type TestStores } from '@runplane/testing';
import { WebhookDeliveriesRepository } from './deliveries.repository';
import { type AttemptResult, WebhookDispatcher } from './dispatcher';
import type { WebhookSender } from './http-sender';
import type { AttemptOutcome } from './policy';
import { WebhookSecretsRepository } from './secrets.repository';
import { WebhookSecretsService } from './secrets.service';
import { WebhookUrlGuard } from './url-safety';

type Observed = [AttemptResult, { status: string; seconds: number } | undefined];

describe('WebhookDispatcher observer', () => {
  let stores: TestStores;
  let accountId: string;
  let endpointId: string;
  // The delivery's createdAt is the database's clock: the dispatcher's starts from the real time too.
  let now = Date.now();

  beforeAll(async () => {
    stores = await createTestStores('webhooks-observer');
    accountId = (await stores.db.account.create({ data: { id: newId(), name: 'hooks' } })).id;
    const template = await stores.db.template.create({
      data: { id: newId(), accountId, name: 't', imageName: 'i', isServerless: true },
    });
    endpointId = (
      await stores.db.endpoint.create({ data: { id: newId(), accountId, name: 'e', templateId: template.id } })
    ).id;
  });
  afterAll(() => stores.close());

  function dispatcher(script: AttemptOutcome[], observed: Observed[]): WebhookDispatcher {
    const sender: WebhookSender = { send: async () => script.shift() ?? { kind: 'error', error: 'x', durationMs: 1 } };
    return new WebhookDispatcher({
      deliveries: new WebhookDeliveriesRepository(stores.db),
      secrets: new WebhookSecretsService(new WebhookSecretsRepository(stores.db), {
        seal: (plaintext) => plaintext,
        open: (envelope) => envelope,
      }),
      guard: new WebhookUrlGuard([], async () => [{ address: '93.184.215.14', family: 4 }]),
      sender,
      schedule: async () => undefined,
      policy: { maxAttempts: 3, spacingMs: 10_000, timeoutMs: 1_000 },
      now: () => new Date(now),
      observer: { attempted: (result, ended) => void observed.push([result, ended]) },
    });
  }

  const accept = (instance: WebhookDispatcher, url = 'https://hooks.example.com/in') => {
    const jobId = `job-${newId()}`;
    const record = { id: jobId, status: 'COMPLETED' as const, output: {}, retries: 0 };
    return instance.accept({ endpointId, jobId, url, record }, `${jobId}-1`);
  };

  it('reports each recorded attempt by outcome, and the delivery end with the seconds since it was accepted', async () => {
    const observed: Observed[] = [];
    const instance = dispatcher(
      [
        { kind: 'response', statusCode: 500, excerpt: 'no', durationMs: 2 },
        { kind: 'error', error: 'ECONNRESET', durationMs: 2 },
        { kind: 'response', statusCode: 204, excerpt: '', durationMs: 2 },
      ],
      observed,
    );
    const delivery = await accept(instance);
    await instance.attempt(delivery.id, 1);
    now += 10_000;
    await instance.attempt(delivery.id, 2);
    now += 10_000;
    await instance.attempt(delivery.id, 3);
    // A repeated attempt job records nothing and reports nothing.
    await instance.attempt(delivery.id, 3);
    const accepted = delivery.createdAt.getTime();
    expect(observed).toEqual([
      ['http_error', undefined],
      ['network_error', undefined],
      ['delivered', { status: 'succeeded', seconds: (now - accepted) / 1000 }],
    ]);
  });

  it('reports a refused URL as a failed delivery at once', async () => {
    const observed: Observed[] = [];
    const instance = dispatcher([], observed);
    const delivery = await accept(instance, 'http://127.0.0.1:9/in');
    await instance.attempt(delivery.id, 1);
    expect(observed).toEqual([['refused', { status: 'failed', seconds: expect.any(Number) }]]);
  });
});
