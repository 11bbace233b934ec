import { missingMigrations } from '@runplane/db';
import type { Logger } from '@runplane/observability';
import { createServer, type Server } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';

/** Defaults of SCHEMA_WAIT_TIMEOUT_MS and SCHEMA_WAIT_INTERVAL_MS. */
export const SCHEMA_WAIT_TIMEOUT_MS_DEFAULT = 300_000;
export const SCHEMA_WAIT_INTERVAL_MS_DEFAULT = 2_000;

/** Where and how long a service waits for the database schema before it starts. */
export interface SchemaWaitOptions {
  databaseUrl: string;
  host: string;
  port: number;
  timeoutMs: number;
  intervalMs: number;
  logger: Logger;
  /** The migrations this build ships (default: the folder names under prisma/migrations). */
  shipped?: string[];
}

/** The service gave up waiting: the message names the migrations the database still lacks. */
export class SchemaNotReadyError extends Error {
  constructor(status: string, timeoutMs: number) {
    super(`the database schema is not ready after ${timeoutMs} ms: ${status}`);
  }
}

/** What the service is waiting for: the migrations not applied, or why it cannot tell yet. */
async function schemaStatus(databaseUrl: string, shipped: string[] | undefined): Promise<string | undefined> {
  try {
    const missing = await missingMigrations(databaseUrl, shipped);
    return missing.length === 0
      ? undefined
      : `waiting for migration ${missing.join(', ')} (applied by dist/tools/migrate/main.js)`;
  } catch (error) {
    // Postgres not answering yet is a reason to keep waiting, not to exit: /readyz says so meanwhile.
    return `waiting for the database: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * Until the real app listens, /healthz answers 200 (the process is alive; a liveness probe must not restart it)
 * and /readyz 503 with the schema check failing, so nothing routes traffic here yet.
 */
async function listenWhileWaiting(options: SchemaWaitOptions, status: () => string): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    const [code, body]: [number, object] =
      path === '/healthz'
        ? [200, { status: 'ok' }]
        : path === '/readyz'
          ? [503, { status: 'unavailable', checks: { schema: { status: 'error', error: status() } } }]
          : [503, { message: 'the service is waiting for the database schema' }];
    response
      .writeHead(code, { 'content-type': 'application/json; charset=utf-8', connection: 'close' })
      .end(JSON.stringify(body));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject).listen(options.port, options.host, () => resolve());
  });
  return server;
}

/**
 * Resolves once the database has every migration this build ships applied; meanwhile logs once which migrations
 * it waits for, serves /healthz and a failing /readyz on the service's port, and rechecks every `intervalMs`.
 * Services never migrate themselves: the migrate tool (the Helm hook Job) does, and they start after it.
 * Rejects with {@link SchemaNotReadyError} after `timeoutMs`.
 */
export async function waitForSchema(options: SchemaWaitOptions): Promise<void> {
  let server: Server | undefined;
  try {
    let status = await schemaStatus(options.databaseUrl, options.shipped);
    if (status === undefined) return;
    options.logger.warn(status);
    server = await listenWhileWaiting(options, () => status ?? 'ready');
    const deadline = Date.now() + options.timeoutMs;
    while (status !== undefined) {
      if (Date.now() >= deadline) throw new SchemaNotReadyError(status, options.timeoutMs);
      await delay(Math.min(options.intervalMs, Math.max(0, deadline - Date.now())));
      status = await schemaStatus(options.databaseUrl, options.shipped);
    }
    options.logger.info('database schema ready');
  } finally {
    await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  }
}
