import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAccountsServices } from '@runplane/accounts';
import { DEFAULT_STORAGE_PRICES } from '@runplane/catalog';
import { newId } from '@runplane/db';
import { buildService, type NestFastifyApplication } from '@runplane/http';
import { JobKeys } from '@runplane/jobs';
import { recordSpans, type RecordedSpan, type SpanRecorder } from '@runplane/observability';
import { createTestStores, pollUntil, type TestStores } from '@runplane/testing';
import { BillingAggregatorModule } from '../../apps/billing-aggregator/src/billing-aggregator.module';
import { billingAggregatorEnvSchema } from '../../apps/billing-aggregator/src/config';
import { jobRouterEnvSchema } from '../../apps/job-router/src/config';
import { createJobRouterEngine } from '../../apps/job-router/src/engine';
import { JobRouterModule } from '../../apps/job-router/src/job-router.module';
import type { PublicJobMeter } from '../../apps/job-router/src/public/public-job-meter';
import { PUBLIC_JOB_METER } from '../../apps/job-router/src/public/public-job-metering';
import { createWorkerTokensService } from '../../apps/job-router/src/worker-tokens';
import { webhookDispatcherEnvSchema } from '../../apps/webhook-dispatcher/src/config';
import { WebhookDispatcherModule } from '../../apps/webhook-dispatcher/src/webhook-dispatcher.module';

/** The client's own trace (its span that sent /run), and the worker's polling loop's trace. */
const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_PARENT = `00-${CLIENT_TRACE}-00f067aa0ba902b7-01`;
const WORKER_TRACE = '5c0e4b1d2a3f46b7b8c9d0e1f2a3b4c5';
const WORKER_PARENT = `00-${WORKER_TRACE}-1111222233334444-01`;

/** A customer's webhook URL on this machine: answers 200 and keeps what it got. */
async function startReceiver(): Promise<{ server: Server; url: string; hostPort: string; got: IncomingHttpHeaders[] }> {
  const got: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      got.push(req.headers);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const hostPort = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, url: `http://${hostPort}/hook`, hostPort, got };
}

async function start(
  name: string,
  config: Parameters<typeof buildService>[0]['config'],
  module: Parameters<typeof buildService>[0]['module'],
) {
  const errorStyle = name === 'job-router' ? 'job' : 'v1';
  const app = await buildService({ serviceName: name, errorStyle, config, module });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}

describe('one trace per job: /run, the queue, the worker, the webhook', () => {
  let recorder: SpanRecorder;
  let stores: TestStores;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let router: NestFastifyApplication;
  let dispatcher: NestFastifyApplication;
  let billing: NestFastifyApplication;

  beforeAll(async () => {
    // First: the services' tracing is then recorded here whichever of them starts it.
    recorder = recordSpans();
    stores = await createTestStores('job-trace');
    receiver = await startReceiver();
    const common = { DATABASE_URL: stores.database.url, REDIS_PREFIX: stores.prefix, LOG_LEVEL: 'silent' };
    const routerConfig = jobRouterEnvSchema.parse({ ...common, JOB_SWEEP_INTERVAL_MS: '0', JOB_TAKE_WAIT_MS: '200' });
    router = await start('job-router', routerConfig, (infra) =>
      JobRouterModule.forRoot(infra, { config: routerConfig, engine: createJobRouterEngine }),
    );
    const dispatcherConfig = webhookDispatcherEnvSchema.parse({
      ...common,
      RUNPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      WEBHOOK_ALLOWED_HOSTS: receiver.hostPort,
    });
    dispatcher = await start('webhook-dispatcher', dispatcherConfig, (infra) =>
      WebhookDispatcherModule.forRoot(dispatcherConfig, infra),
    );
    const billingConfig = billingAggregatorEnvSchema.parse(common);
    const settings = { redisPrefix: billingConfig.REDIS_PREFIX, concurrency: 1, rollUpIntervalMs: 0 };
    const options = { redisUrl: billingConfig.REDIS_URL, prices: DEFAULT_STORAGE_PRICES, settings };
    billing = await start('billing-aggregator', billingConfig, (infra) =>
      BillingAggregatorModule.forRoot(infra, options),
    );
  });
  afterAll(async () => {
    await router?.close();
    await dispatcher?.close();
    await billing?.close();
    await new Promise((resolve) => receiver?.server.close(resolve));
    await stores?.close();
    await recorder?.stop();
  });

  /** An account with a key, a serverless endpoint and a worker token for worker `w1`. */
  async function fixtures() {
    const { accounts, apiKeys } = createAccountsServices(stores.db);
    const account = await accounts.create({ name: 'traced' });
    const { secret } = await apiKeys.create(account.id, { name: 'key', scope: 'ALL' });
    const template = await stores.db.template.create({
      data: {
        id: newId(),
        accountId: account.id,
        name: `tpl-${newId()}`,
        imageName: 'runplane/echo:1',
        isServerless: true,
      },
    });
    const endpoint = await stores.db.endpoint.create({
      data: { id: newId(), accountId: account.id, name: `ep-${newId()}`, templateId: template.id },
    });
    const token = (await createWorkerTokensService(stores.db).issue(endpoint.id, 'w1')).token;
    return { key: secret, accountId: account.id, endpointId: endpoint.id, token };
  }

  /** The spans of trace `traceId` once one named `last` has ended, by name (exactly one of each name asked for). */
  async function traceOf(traceId: string, last: string) {
    const spans = await pollUntil(
      async () => {
        const all = (await recorder.spans()).filter((span) => span.traceId === traceId);
        return all.some((span) => span.name === last) ? all : undefined;
      },
      { description: `the ${last} span ended` },
    );
    return (name: string): RecordedSpan => {
      const found = spans.filter((span) => span.name === name);
      expect({ name, count: found.length }).toEqual({ name, count: 1 });
      return found[0] as RecordedSpan;
    };
  }

  it('follows a job from /run through take, stream and job-done to the webhook as one trace, spans in order', async () => {
    const { key, endpointId, token } = await fixtures();
    const http = router.getHttpAdapter().getInstance();
    const run = await http.inject({
      method: 'POST',
      url: `/v2/${endpointId}/run`,
      headers: { authorization: `Bearer ${key}`, traceparent: CLIENT_PARENT },
      payload: { input: { prompt: 'hi' }, webhook: receiver.url },
    });
    expect(run.statusCode).toBe(200);
    const jobId = (run.json() as { id: string }).id;

    // A worker whose requests carry its own polling loop's trace, as an instrumented RunPod worker's would.
    const worker = { authorization: `Bearer ${token}`, traceparent: WORKER_PARENT };
    const take = await http.inject({ method: 'GET', url: `/v2/${endpointId}/job-take/w1`, headers: worker });
    expect(take.json()).toEqual({ id: jobId, input: { prompt: 'hi' }, webhook: receiver.url });
    // A worker that learnt the job's trace and continues it sends the job's traceparent back.
    const jobParent = await stores.redis.hget(JobKeys.ofPrefix(stores.prefix).job(endpointId, jobId), 'traceparent');
    const stream = await http.inject({
      method: 'POST',
      url: `/v2/${endpointId}/job-stream/w1/${jobId}`,
      headers: { ...worker, traceparent: jobParent ?? '' },
      payload: { output: 'partial' },
    });
    expect(stream.statusCode).toBe(200);
    const done = await http.inject({
      method: 'POST',
      url: `/v2/${endpointId}/job-done/w1/${jobId}`,
      headers: worker,
      payload: { output: { answer: 42 } },
    });
    expect(done.statusCode).toBe(200);
    await pollUntil(() => receiver.got.length === 1, { timeoutMs: 30_000, description: 'the webhook delivered' });

    const spans = await pollUntil(
      async () => {
        const all = await recorder.spans();
        return all.some((span) => span.name === 'job webhook.attempt') ? all : undefined;
      },
      { description: 'the webhook attempt span ended' },
    );
    const byName = (name: string): RecordedSpan => {
      const found = spans.filter((span) => span.name === name && span.traceId === CLIENT_TRACE);
      expect({ name, count: found.length }).toEqual({ name, count: 1 });
      return found[0] as RecordedSpan;
    };
    const runSpan = byName('POST /v2/:endpointId/run');
    const submit = byName('job.submit');
    const takeSpan = byName('job.take');
    const streamRequest = byName('POST /v2/:endpointId/job-stream/:workerId/:jobId');
    const streamSpan = byName('job.stream');
    const doneSpan = byName('job.done');
    const deliver = byName('job webhook.deliver');
    const attempt = byName('job webhook.attempt');
    const send = byName('webhook.send');

    // Parent and child, from the client's span down to the webhook's POST.
    expect(runSpan.parentSpanId).toBe('00f067aa0ba902b7');
    const chain: [RecordedSpan, RecordedSpan][] = [
      [runSpan, submit],
      [submit, takeSpan],
      [submit, streamRequest],
      [streamRequest, streamSpan],
      [submit, doneSpan],
      [doneSpan, deliver],
      [deliver, attempt],
      [attempt, send],
    ];
    for (const [parent, child] of chain) {
      expect({ child: child.name, parent: child.parentSpanId }).toEqual({ child: child.name, parent: parent.spanId });
    }
    // In order: each span starts once the one before it started.
    const order = [runSpan, submit, takeSpan, streamSpan, doneSpan, deliver, attempt, send];
    const starts = order.map((span) => span.startMs);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expect(send.attributes).toMatchObject({ 'runplane.webhook.outcome': 'response', 'http.response.status_code': 200 });

    // The worker's requests stay in its own trace; the job's take and job-done spans link to them.
    const takeRequest = spans.find((span) => span.name === 'GET /v2/:endpointId/job-take/:workerId');
    const doneRequest = spans.find((span) => span.name === 'POST /v2/:endpointId/job-done/:workerId/:jobId');
    expect(takeRequest).toMatchObject({ traceId: WORKER_TRACE, parentSpanId: '1111222233334444' });
    expect(doneRequest).toMatchObject({ traceId: WORKER_TRACE, parentSpanId: '1111222233334444' });
    expect(takeSpan.links).toEqual([{ traceId: WORKER_TRACE, spanId: takeRequest?.spanId }]);
    expect(doneSpan.links).toEqual([{ traceId: WORKER_TRACE, spanId: doneRequest?.spanId }]);
    expect(streamSpan.links).toEqual([]);
  });

  it("carries a public-endpoint job's trace to its usage event and the billing-aggregator", async () => {
    const owner = await fixtures();
    await stores.db.pod.create({
      data: { id: 'w1', accountId: owner.accountId, image: 'echo:1', endpointId: owner.endpointId, costPerHr: '0.72' },
    });
    const model = `model-${newId().slice(0, 8)}`;
    await stores.db.publicEndpoint.create({
      data: { id: newId(), name: model, endpointId: owner.endpointId, accountId: owner.accountId },
    });
    const { accounts, apiKeys } = createAccountsServices(stores.db);
    const caller = await accounts.create({ name: 'caller' });
    const { secret } = await apiKeys.create(caller.id, { name: 'key', scope: 'ALL' });
    const http = router.getHttpAdapter().getInstance();
    const clientTrace = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const run = await http.inject({
      method: 'POST',
      url: `/v2/${model}/run`,
      headers: { authorization: `Bearer ${secret}`, traceparent: `00-${clientTrace}-0102030405060708-01` },
      payload: { input: { n: 1 } },
    });
    const jobId = (run.json() as { id: string }).id;
    const worker = { authorization: `Bearer ${owner.token}` };
    const base = `/v2/${owner.endpointId}`;
    expect((await http.inject({ method: 'GET', url: `${base}/job-take/w1`, headers: worker })).statusCode).toBe(200);
    const done = { method: 'POST' as const, url: `${base}/job-done/w1/${jobId}`, headers: worker, payload: {} };
    expect((await http.inject({ ...done, payload: { output: 1 } })).statusCode).toBe(200);
    expect(await router.get<PublicJobMeter>(PUBLIC_JOB_METER).meter()).toBe(1);

    const byName = await traceOf(clientTrace, 'job usage.record');
    const submit = byName('job.submit');
    const billed = byName('job.billed');
    const applied = byName('job usage.record');
    expect(billed.parentSpanId).toBe(submit.spanId);
    expect(applied.parentSpanId).toBe(billed.spanId);
    expect(byName('job.done').startMs).toBeLessThanOrEqual(billed.startMs);
    expect(applied.startMs).toBeGreaterThanOrEqual(billed.startMs);
  });
});
