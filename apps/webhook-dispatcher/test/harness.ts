import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createAccountsServices } from '@runplane/accounts';
import type { WebhookDeliverPayload } from '@runplane/contracts';
import { type createPrismaClient, type DbClient, newId, type WebhookAttempt, type WebhookDelivery } from '@runplane/db';
import { buildService, type NestFastifyApplication } from '@runplane/http';
import { createQueue, jobEventsCatalog, type TypedQueue, WEBHOOKS_QUEUE } from '@runplane/queue';
import {
  createTestStores,
  getFreePort,
  pollUntil,
  type ProcessGroup,
  spawnProcessGroup,
  stopProcessGroup,
} from '@runplane/testing';
import { webhookDispatcherEnvSchema } from '../src/config';
import { WebhookDispatcherModule, type DispatcherOverrides } from '../src/webhook-dispatcher.module';
import { WebhookReceiver } from './receiver';

const REPO_ROOT = join(__dirname, '..', '..', '..');
const NODE = join(REPO_ROOT, 'node_modules/.bin/node');

/** A delivery as the dispatcher recorded it, with its attempts in order. */
export type RecordedDelivery = WebhookDelivery & { attemptsMade: WebhookAttempt[] };

/**
 * What the webhook tests run against: their own database and Redis prefix, a gateway process (serving the
 * account's signing secret on /v1), a local receiver, an account with an endpoint, and the job engine's producer of
 * `webhook.deliver` requests. Dispatchers are started by each test, in process or as child processes.
 */
export interface WebhookStack {
  db: ReturnType<typeof createPrismaClient>;
  receiver: WebhookReceiver;
  accountId: string;
  apiKey: string;
  endpointId: string;
  /** Environment a dispatcher of this stack needs; tests add their policy. */
  env: Record<string, string>;
  /** The account's secret, read through `GET /v1/webhooks/secret` of the gateway. */
  fetchSecret(): Promise<string>;
  /** `POST /v1/webhooks/secret/rotate`. */
  rotateSecret(): Promise<string>;
  /** Queues a `webhook.deliver` as the job engine does when a job finishes; returns the job id. */
  deliver(url: string, record?: Partial<WebhookDeliverPayload['record']>): Promise<string>;
  /** Builds and starts an in-process dispatcher. */
  startDispatcher(env?: Record<string, string>, overrides?: DispatcherOverrides): Promise<NestFastifyApplication>;
  /** Starts a dispatcher as a child process (apps/webhook-dispatcher/src/main.ts). */
  spawnDispatcher(env?: Record<string, string>): Promise<ProcessGroup>;
  /** The delivery of a job, once it has the given status. */
  waitForDelivery(jobId: string, status: 'SUCCEEDED' | 'FAILED', timeoutMs?: number): Promise<RecordedDelivery>;
  close(): Promise<void>;
}

async function waitReady(port: number, child: ProcessGroup, name: string): Promise<void> {
  await pollUntil(async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok, {
    timeoutMs: 60_000,
    intervalMs: 100,
    ignoreErrors: true,
    description: `${name} ready (output so far: ${child.output().slice(-2000)})`,
  });
}

function spawnApp(app: string, env: Record<string, string>): ProcessGroup {
  return spawnProcessGroup(NODE, ['-r', '@swc-node/register', `apps/${app}/src/main.ts`], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
  });
}

/** The stack's account: its API key and a serverless endpoint whose jobs the deliveries are for. */
async function seedAccount(
  db: DbClient,
  label: string,
): Promise<{ accountId: string; apiKey: string; endpointId: string }> {
  const { accounts, apiKeys } = createAccountsServices(db);
  const account = await accounts.create({ name: label });
  const { secret: apiKey } = await apiKeys.create(account.id, { name: 'webhooks', scope: 'ALL' });
  const template = await db.template.create({
    data: {
      id: newId(),
      accountId: account.id,
      name: `tpl-${label}`,
      imageName: 'runplane/echo:1',
      isServerless: true,
    },
  });
  const endpoint = await db.endpoint.create({
    data: { id: newId(), accountId: account.id, name: `ep-${label}`, templateId: template.id },
  });
  return { accountId: account.id, apiKey, endpointId: endpoint.id };
}

/** A webhook secret route of the gateway (`GET /webhooks/secret`, `POST /webhooks/secret/rotate`), with the key. */
function secretRoute(gatewayPort: number, apiKey: string) {
  return async (method: 'GET' | 'POST', path: string): Promise<string> => {
    const res = await fetch(`http://127.0.0.1:${gatewayPort}/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}` },
    });
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { secret: string }).secret;
  };
}

/** Queues `webhook.deliver` requests for jobs of `endpointId`, as the job engine does when a job finishes. */
function deliverer(producer: TypedQueue<typeof jobEventsCatalog, typeof WEBHOOKS_QUEUE>, endpointId: string) {
  return async (url: string, record: Partial<WebhookDeliverPayload['record']> = {}): Promise<string> => {
    const jobId = `${newId()}-u1`;
    const payload: WebhookDeliverPayload = {
      endpointId,
      jobId,
      url,
      record: {
        id: jobId,
        status: 'COMPLETED',
        delayTime: 12,
        executionTime: 340,
        output: { answer: 42 },
        retries: 0,
        ...record,
      },
    };
    await producer.add('webhook.deliver', payload, { jobId: `${jobId}-${Date.now()}` });
    return jobId;
  };
}

/** Builds an in-process dispatcher on `env` (plus `extra`) and keeps it in `apps` for the stack's close. */
async function startDispatcherIn(
  apps: NestFastifyApplication[],
  env: Record<string, string>,
  overrides: DispatcherOverrides,
): Promise<NestFastifyApplication> {
  const config = webhookDispatcherEnvSchema.parse(env);
  const app = await buildService({
    serviceName: 'webhook-dispatcher',
    errorStyle: 'v1',
    config,
    module: (infrastructure) => WebhookDispatcherModule.forRoot(config, infrastructure, overrides),
  });
  await app.init();
  apps.push(app);
  return app;
}

/** Starts `app` as a child process on a free port, kept in `children` for the stack's close; resolves once ready. */
async function spawnAppIn(
  children: ProcessGroup[],
  app: string,
  env: Record<string, string>,
): Promise<{ child: ProcessGroup; port: number }> {
  const port = await getFreePort();
  const child = spawnApp(app, { ...env, PORT: String(port) });
  children.push(child);
  await waitReady(port, child, app);
  return { child, port };
}

/** The delivery of `jobId` once it has `status`, with its attempts in order. */
function waitForDelivery(
  db: DbClient,
  where: { jobId: string; status: 'SUCCEEDED' | 'FAILED' },
  timeoutMs: number,
): Promise<RecordedDelivery> {
  const found = () =>
    db.webhookDelivery.findFirst({ where, include: { attemptsMade: { orderBy: { attempt: 'asc' } } } });
  return pollUntil(found, { timeoutMs, intervalMs: 50, description: `delivery of ${where.jobId} ${where.status}` });
}

/** Starts the stack for one test file. */
export async function startWebhookStack(label: string): Promise<WebhookStack> {
  const stores = await createTestStores(label);
  const { db, redis, prefix } = stores;
  const receiver = new WebhookReceiver();
  await receiver.start();
  const common = {
    DATABASE_URL: stores.database.url,
    REDIS_PREFIX: prefix,
    RUNPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'error',
  };
  const apps: NestFastifyApplication[] = [];
  const children: ProcessGroup[] = [];
  const gatewayPort = (await spawnAppIn(children, 'gateway', common)).port;
  const account = await seedAccount(db, label);
  const producer = createQueue(jobEventsCatalog, WEBHOOKS_QUEUE, { redis, prefix });
  const v1 = secretRoute(gatewayPort, account.apiKey);
  const env = { ...common, WEBHOOK_ALLOWED_HOSTS: receiver.hostPort };
  return {
    ...{ db, receiver, env, ...account },
    fetchSecret: () => v1('GET', '/webhooks/secret'),
    rotateSecret: () => v1('POST', '/webhooks/secret/rotate'),
    deliver: deliverer(producer, account.endpointId),
    startDispatcher: (extra = {}, overrides = {}) => startDispatcherIn(apps, { ...env, ...extra }, overrides),
    spawnDispatcher: async (extra = {}) =>
      (await spawnAppIn(children, 'webhook-dispatcher', { ...env, ...extra })).child,
    waitForDelivery: (jobId, status, timeoutMs = 30_000) => waitForDelivery(db, { jobId, status }, timeoutMs),
    async close() {
      await Promise.all(apps.map((app) => app.close()));
      await Promise.all(children.map((child) => stopProcessGroup(child, 5_000)));
      await producer.close();
      await receiver.close();
      await stores.close();
    },
  };
}
