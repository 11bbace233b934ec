import { createAccountsServices } from '@runplane/accounts';
import type { PodUsageEvent } from '@runplane/contracts';
import { newId } from '@runplane/db';
import type { NestFastifyApplication } from '@runplane/http';
import { createQueue, createRedis, type Redis, USAGE_QUEUE, usageCatalog } from '@runplane/queue';
import { createTestStores, podUsageEvent, pollUntil, type TestStores } from '@runplane/testing';
import { WebhookReceiver } from '../../apps/webhook-dispatcher/test/receiver';
import {
  alertRules,
  dashboardQueries,
  metricNames,
  SCHEDULER_WORKLOAD_METRICS,
} from '../observability/monitoring-files';
import { exposedNames, sample, SERVICE_NAMES, startService } from './observability-platform';

/*
 * The five services built in this process on one database and Redis prefix (the scheduler on a prefix of its own, so
 * its autoscaler leaves the jobs alone), a scripted workload through their real routes and queues, then their
 * /metrics: the values the workload must have produced, and every metric a dashboard or an alert queries.
 */

/** Prometheus makes `up` itself for each target; no service exports it. */
const MADE_BY_PROMETHEUS = new Set(['up']);

describe('Runplane metrics after a scripted workload', () => {
  let stores: TestStores;
  let queueRedis: Redis;
  const receiver = new WebhookReceiver();
  const apps = new Map<string, NestFastifyApplication>();
  let key: string;
  let accountId: string;
  let endpointId: string;

  const inject = (service: string, options: Parameters<NestFastifyApplication['inject']>[0] & object) =>
    apps.get(service)!.getHttpAdapter().getInstance().inject(options);
  const scrape = async (service: string): Promise<string> =>
    (await inject(service, { method: 'GET', url: '/metrics' })).body;
  const jobApi = async (method: 'GET' | 'POST', path: string, payload?: object) => {
    const res = await inject('job-router', {
      method,
      url: `/v2/${endpointId}/${path}`,
      headers: { authorization: `Bearer ${key}` },
      ...(payload ? { payload } : {}),
    });
    return { status: res.statusCode, body: (res.body ? res.json() : {}) as Record<string, unknown> };
  };
  const run = async (payload: object): Promise<string> => {
    const { status, body } = await jobApi('POST', 'run', { input: { n: 1 }, ...payload });
    expect(status).toBe(200);
    return body['id'] as string;
  };
  const take = async (): Promise<string> => {
    const taken = await pollUntil(async () => (await jobApi('GET', 'job-take/w-1?job_in_progress=0')).body['id'], {
      description: 'a job taken',
    });
    return taken as string;
  };
  const statusOf = async (id: string): Promise<unknown> => (await jobApi('GET', `status/${id}`)).body['status'];

  beforeAll(async () => {
    stores = await createTestStores('observability');
    await receiver.start();
    receiver.failFirst('/hook', 100, 500);
    const env = { DATABASE_URL: stores.database.url, REDIS_PREFIX: stores.prefix };
    const own: Record<string, Record<string, string>> = {
      'job-router': { JOB_SWEEP_INTERVAL_MS: '100', JOB_TAKE_WAIT_MS: '200', JOB_RATE_LIMITS: 'cancel=1/0' },
      'webhook-dispatcher': {
        WEBHOOK_ALLOWED_HOSTS: receiver.hostPort,
        WEBHOOK_MAX_ATTEMPTS: '2',
        WEBHOOK_ATTEMPT_SPACING_MS: '50',
        WEBHOOK_ATTEMPT_TIMEOUT_MS: '5000',
      },
      scheduler: { REDIS_PREFIX: `${stores.prefix}scheduler` },
    };
    for (const name of SERVICE_NAMES) apps.set(name, await startService(name, { ...env, ...own[name] }));
    const { accounts, apiKeys } = createAccountsServices(stores.db);
    accountId = (await accounts.create({ name: 'observability' })).id;
    key = (await apiKeys.create(accountId, { name: 'all', scope: 'ALL' })).secret;
    const template = await stores.db.template.create({
      data: { id: newId(), accountId, name: `tpl-${newId()}`, imageName: 'runplane/echo:1', isServerless: true },
    });
    endpointId = (
      await stores.db.endpoint.create({ data: { id: newId(), accountId, name: 'ep', templateId: template.id } })
    ).id;
    queueRedis = createRedis('redis://127.0.0.1:6379');
  }, 120_000);

  afterAll(async () => {
    for (const app of apps.values()) await app.close();
    queueRedis.disconnect();
    await receiver.close();
    await stores.close();
  });

  it('counts jobs that succeed, fail, time out and are cancelled, and the requests the limits refuse', async () => {
    const ok = await run({ webhook: receiver.url('/hook') });
    expect(await take()).toBe(ok);
    expect((await jobApi('POST', `job-done/w-1/${ok}?isStream=false`, { output: { ok: true } })).status).toBe(200);
    const failing = await run({});
    expect(await take()).toBe(failing);
    expect((await jobApi('POST', `job-done/w-1/${failing}?isStream=false`, { error: 'boom' })).status).toBe(200);
    const slow = await run({ policy: { executionTimeout: 5_000 } });
    expect(await take()).toBe(slow);
    await pollUntil(async () => (await statusOf(slow)) === 'TIMED_OUT', {
      timeoutMs: 30_000,
      description: 'timed out',
    });
    const queued = await run({});
    expect((await jobApi('POST', `cancel/${queued}`)).status).toBe(200);
    expect((await jobApi('POST', `cancel/${queued}`)).status).toBe(429);

    const ep = { endpoint: endpointId, service: 'job-router' };
    const text = await pollUntil(
      async () => {
        const body = await scrape('job-router');
        return sample(body, 'runplane_jobs_finished_total', { ...ep, status: 'CANCELLED' }) === 1 && body;
      },
      { description: 'the four final statuses counted' },
    );
    expect(sample(text, 'runplane_jobs_submitted_total', ep)).toBe(4);
    for (const status of ['COMPLETED', 'FAILED', 'TIMED_OUT', 'CANCELLED'])
      expect(sample(text, 'runplane_jobs_finished_total', { ...ep, status })).toBe(1);
    expect(sample(text, 'runplane_job_delay_seconds_count', ep)).toBe(3);
    expect(sample(text, 'runplane_job_execution_seconds_count', ep)).toBe(3);
    // The job that timed out ran its 5 s at least.
    expect(sample(text, 'runplane_job_execution_seconds_sum', ep)).toBeGreaterThanOrEqual(5);
    expect(sample(text, 'runplane_job_rate_limited_total', { ...ep, operation: 'cancel' })).toBe(1);
    expect(sample(text, 'runplane_queue_depth', ep)).toBe(0);
    expect(sample(text, 'runplane_queue_oldest_job_age_seconds', ep)).toBe(0);
  });

  it('counts the attempts of a webhook the receiver refuses, and the delivery that failed', async () => {
    const text = await pollUntil(
      async () => {
        const body = await scrape('webhook-dispatcher');
        return sample(body, 'runplane_webhook_delivery_seconds_count', { status: 'failed' }) === 1 && body;
      },
      { timeoutMs: 30_000, description: 'the delivery failed' },
    );
    expect(receiver.callsTo('/hook').map((call) => call.status)).toEqual([500, 500]);
    expect(sample(text, 'runplane_webhook_attempts_total', { outcome: 'http_error' })).toBe(2);
    expect(sample(text, 'runplane_webhook_attempts_total', { outcome: 'delivered' })).toBeUndefined();
    expect(sample(text, 'runplane_webhook_delivery_seconds_count', { status: 'succeeded' })).toBeUndefined();
  });

  it('counts usage events applied and refused', async () => {
    const queue = createQueue(usageCatalog, USAGE_QUEUE, { redis: queueRedis, prefix: stores.prefix });
    try {
      const event = (id: string, account: string): PodUsageEvent =>
        podUsageEvent({
          eventId: id,
          accountId: account,
          occurredAt: new Date().toISOString(),
          type: 'pod.started',
          podId: `pod-${id}`,
        });
      await queue.add('usage.record', event('ev-ok', accountId), { jobId: 'ev-ok' });
      await queue.add('usage.record', event('ev-nobody', 'no-such-account'), { jobId: 'ev-nobody' });
      const text = await pollUntil(
        async () => {
          const body = await scrape('billing-aggregator');
          const applied = sample(body, 'runplane_usage_events_applied_total', { outcome: 'recorded' });
          return applied === 1 && sample(body, 'runplane_usage_events_failed_total', {}) !== undefined && body;
        },
        { timeoutMs: 30_000, description: 'both usage events handled' },
      );
      expect(sample(text, 'runplane_usage_events_failed_total', { reason: 'UNKNOWN_ACCOUNT' })).toBe(1);
    } finally {
      await queue.close();
    }
  });

  it('exports every metric the dashboards and alerts query, store errors at 0 on every service', async () => {
    const exposed = new Set<string>();
    for (const name of SERVICE_NAMES) {
      await inject(name, { method: 'GET', url: '/healthz' });
      const text = await scrape(name);
      for (const metric of exposedNames(text)) exposed.add(metric);
      expect(sample(text, 'runplane_postgres_errors_total', { service: name })).toBe(0);
      expect(sample(text, 'runplane_redis_errors_total', { service: name })).toBe(0);
    }
    const queried = new Map<string, string>();
    for (const [file, exprs] of dashboardQueries())
      for (const expr of exprs) for (const metric of metricNames(expr)) queried.set(metric, file);
    for (const rule of alertRules()) for (const metric of metricNames(rule.expr)) queried.set(metric, rule.alert);
    // A scheduler's workers, refusals and Kubernetes traffic are scraped by scheduler-kubernetes-metrics.kube.spec.ts.
    const missing = [...queried].filter(
      ([metric]) => !exposed.has(metric) && !MADE_BY_PROMETHEUS.has(metric) && !SCHEDULER_WORKLOAD_METRICS.has(metric),
    );
    expect(missing).toEqual([]);
    expect(queried.size).toBeGreaterThan(10);
  });
});
