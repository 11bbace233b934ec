import { randomBytes } from 'node:crypto';
import { createAccountsServices } from '@runplane/accounts';
import type { ApiKeyScope } from '@runplane/contracts';
import type { createPrismaClient } from '@runplane/db';
import {
  buildService,
  type InjectOptions,
  type LightMyRequestResponse,
  type NestFastifyApplication,
} from '@runplane/http';
import { createTestStores } from '@runplane/testing';
import { type PodPlacementClient, unbookedPlacement } from '@runplane/workloads';
import { gatewayEnvSchema } from '../src/config';
import { GatewayModule } from '../src/gateway.module';
import { GATEWAY_SERVICE } from '../src/gateway-service';

/** A gateway built on its own test database and Redis prefix, driven through Fastify's inject. */
export interface GatewayHarness {
  app: NestFastifyApplication;
  db: ReturnType<typeof createPrismaClient>;
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** Creates an account and a key of the given scope; returns the account id and the key's secret. */
  accountWithKey(
    scope?: ApiKeyScope,
    allowedEndpointIds?: string[],
  ): Promise<{ accountId: string; keyId: string; secret: string }>;
  close(): Promise<void>;
}

/** Options of {@link startGateway}. */
export interface GatewayHarnessOptions {
  /** Places Pods; without it they are placed without capacity checks (placement is tested with the real scheduler). */
  placement?: () => PodPlacementClient;
  /** Environment over the harness's own (e.g. v2 quotas). */
  env?: Record<string, string>;
}

/** Starts a gateway for one test file, on its own database and Redis prefix. */
export async function startGateway(label: string, options: GatewayHarnessOptions = {}): Promise<GatewayHarness> {
  const placement = options.placement ?? (() => unbookedPlacement);
  const stores = await createTestStores(label);
  const config = gatewayEnvSchema.parse({
    DATABASE_URL: stores.database.url,
    REDIS_PREFIX: stores.prefix,
    RUNPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'silent',
    BODY_LIMIT_BYTES: String(64 * 1024),
    ...options.env,
  });
  const app = await buildService({
    ...GATEWAY_SERVICE,
    config,
    module: (infrastructure) => GatewayModule.forRoot(config, infrastructure, placement),
  });
  await app.init();
  const fastify = app.getHttpAdapter().getInstance();
  await fastify.ready();
  const { db } = stores;
  const { accounts, apiKeys } = createAccountsServices(db);
  return {
    app,
    db,
    inject: (options) => fastify.inject(options),
    async accountWithKey(scope = 'ALL', allowedEndpointIds) {
      const account = await accounts.create({ name: `${label}-account` });
      const { apiKey, secret } = await apiKeys.create(account.id, { name: `${scope} key`, scope, allowedEndpointIds });
      return { accountId: account.id, keyId: apiKey.id, secret };
    },
    async close() {
      await app.close();
      await stores.close();
    },
  };
}

/** Authorization header in Bearer form. */
export const bearer = (secret: string): Record<string, string> => ({ authorization: `Bearer ${secret}` });

/** An account calling the API with its key. */
export type Caller = { accountId: string; secret: string };
export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** A request as `caller` on the gateway that `gw` returns when the request is made (specs start it in beforeAll). */
export function requestsAs(
  gw: () => GatewayHarness,
): (caller: Caller, method: Method, url: string, payload?: object) => Promise<LightMyRequestResponse> {
  return (caller, method, url, payload) =>
    gw().inject({ method, url, headers: bearer(caller.secret), ...(payload ? { payload } : {}) });
}

/** A REST call answering its status and JSON body. */
export type RestCall = <T>(
  secret: string,
  method: Method,
  url: string,
  payload?: object,
) => Promise<{ status: number; body: T }>;

/** REST calls with a key on the gateway that `gw` returns when the call is made (specs start it in beforeAll). */
export function restAs(gw: () => GatewayHarness): RestCall {
  return async <T>(secret: string, method: Method, url: string, payload?: object) => {
    const res = await gw().inject({ method, url, headers: bearer(secret), ...(payload ? { payload } : {}) });
    return { status: res.statusCode, body: res.json<T>() };
  };
}

/** Creates a serverless template named `name` with `secret`'s key; answers its id. */
export async function newServerlessTemplate(rest: RestCall, secret: string, name: string): Promise<{ id: string }> {
  const { body } = await rest<{ id: string }>(secret, 'POST', '/v1/templates', {
    name,
    imageName: 'runplane/accept:1',
    isServerless: true,
  });
  return body;
}
