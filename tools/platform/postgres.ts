import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { loadEmbeddedPostgres } from './embedded-postgres-loader';
import { findFreePort, isTcpOpen } from './net';
import { externalService, type LogFn, type ResolvedService, ServiceUnavailableError } from './services';

/** Where to look for Postgres when DATABASE_URL is not set. */
export interface PostgresResolveOptions {
  databaseUrl: string | undefined;
  localHost: string;
  localPort: number;
  databaseName: string;
  /** Data directory for embedded Postgres; undefined disables the embedded fallback. */
  embeddedDataDir: string | undefined;
  /** Creates the database named in the URL when it does not exist yet. */
  ensureDatabase: (url: string) => Promise<void>;
  log: LogFn;
}

/** The URL of the runner's database on a local server with trust authentication. */
export function localDatabaseUrl(host: string, port: number, database: string): string {
  return `postgres://postgres@${host}:${port}/${database}`;
}

/** DATABASE_URL when set; else local Postgres on the default port; else embedded Postgres. */
export async function resolvePostgres(options: PostgresResolveOptions): Promise<ResolvedService> {
  if (options.databaseUrl !== undefined) {
    await options.ensureDatabase(options.databaseUrl);
    return externalService(options.databaseUrl, 'env');
  }
  if (await isTcpOpen(options.localHost, options.localPort)) {
    const url = localDatabaseUrl(options.localHost, options.localPort, options.databaseName);
    await options.ensureDatabase(url);
    options.log(`using Postgres at ${options.localHost}:${options.localPort}, database ${options.databaseName}`);
    return externalService(url, 'local');
  }
  if (options.embeddedDataDir === undefined) {
    throw new ServiceUnavailableError(
      `Postgres is not answering at ${options.localHost}:${options.localPort}; set DATABASE_URL=postgres://user:password@host:port/database`,
    );
  }
  return startEmbedded(options.embeddedDataDir, options);
}

const EMBEDDED_USER = 'postgres';
const EMBEDDED_PASSWORD = 'runplane';

async function startEmbedded(dataDir: string, options: PostgresResolveOptions): Promise<ResolvedService> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const port = await findFreePort();
  const errors: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: EMBEDDED_USER,
    password: EMBEDDED_PASSWORD,
    persistent: true,
    // Postgres refuses to run as root; the package then runs it as a dedicated system user.
    createPostgresUser: userInfo().uid === 0,
    onLog: () => undefined,
    onError: (error: unknown) => errors.push(String(error)),
  });
  try {
    if (!existsSync(join(dataDir, 'PG_VERSION'))) {
      mkdirSync(dataDir, { recursive: true });
      options.log(`initialising embedded Postgres in ${dataDir}`);
      await server.initialise();
    }
    await server.start();
  } catch (error) {
    const detail = errors.join(' ').trim() || String(error);
    const rootHint =
      userInfo().uid === 0
        ? '\nAs root, Postgres runs as the "postgres" system user, which must be able to reach the data dir:' +
          ' set RUNPLANE_STATE_DIR outside root-only folders, or set DATABASE_URL.'
        : '';
    throw new ServiceUnavailableError(`embedded Postgres did not start (data dir ${dataDir}): ${detail}${rootHint}`);
  }
  const url = `postgres://${EMBEDDED_USER}:${EMBEDDED_PASSWORD}@127.0.0.1:${port}/${options.databaseName}`;
  await options.ensureDatabase(url);
  options.log(`started embedded Postgres on 127.0.0.1:${port}`);
  return { url, source: 'embedded', pid: postmasterPid(dataDir), stop: () => server.stop() };
}

/** The postmaster's pid from its lock file, so pids.json can list it. */
function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
