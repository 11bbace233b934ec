import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { type Prisma, PrismaClient } from './generated/prisma/client';
import { preparedStatementNames, preparedStatementsOf } from './statement-names';

/** A Prisma client that owns a connection pool. */
export type DatabaseClient = PrismaClient;

/** Anything that runs queries: the pooled client or an open interactive transaction. */
export type DbClient = PrismaClient | Prisma.TransactionClient;

/** Pool settings for {@link createPrismaClient}. */
export interface PrismaClientOptions {
  /** Maximum pooled connections (default 10). */
  poolSize?: number;
  /** Give up opening a connection after this long (default 5000 ms), so an unreachable database fails fast. */
  connectTimeoutMs?: number;
  /**
   * Called for each failed attempt to open a pooled connection and each error of an open one (the server went away,
   * a connection was reset): what `runplane_postgres_errors_total` counts. Failed queries are not connection errors.
   */
  onConnectionError?: (error: Error) => void;
}

/** A pg client class that reports its failed connection attempts (pg's Pool calls connect with a callback). */
function reportingClient(onError: (error: Error) => void): typeof pg.Client {
  return class ReportingClient extends pg.Client {
    override connect(): Promise<pg.Client>;
    override connect(callback: (error: Error | null, client?: pg.Client) => void): void;
    override connect(callback?: (error: Error | null, client?: pg.Client) => void): Promise<pg.Client> | void {
      const report = (error: Error): Error => {
        onError(error);
        return error;
      };
      if (!callback) return super.connect().catch((error: Error) => Promise.reject(report(error)));
      super.connect((error: Error | null) => (error ? callback(report(error)) : callback(null, this)));
    }
  };
}

/**
 * Creates a Rust-free Prisma client over node-postgres for the given postgres:// URL. Each connection prepares the
 * query shapes it runs (see {@link preparedStatementNames}) unless the URL says `pgbouncer=true`.
 */
export function createPrismaClient(databaseUrl: string, options: PrismaClientOptions = {}): DatabaseClient {
  const onError = options.onConnectionError;
  const { url, prepared } = preparedStatementsOf(databaseUrl);
  const adapter = new PrismaPg(
    {
      connectionString: url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      ...(onError ? { Client: reportingClient(onError) } : {}),
    },
    {
      ...(prepared ? { statementNameGenerator: preparedStatementNames() } : {}),
      ...(onError ? { onPoolError: onError, onConnectionError: onError } : {}),
    },
  );
  return new PrismaClient({ adapter });
}

function isPooledClient(db: DbClient): db is PrismaClient {
  return typeof (db as Partial<PrismaClient>).$transaction === 'function';
}

/** Options for {@link withTransaction}. */
export interface TransactionOptions {
  isolationLevel?: Prisma.TransactionIsolationLevel;
  /** Longest the transaction may run (default 10000 ms). */
  timeoutMs?: number;
}

/**
 * Runs `fn` in a transaction. When `db` already is a transaction, `fn` joins it, so repositories
 * can be composed without knowing whether their caller opened one.
 */
export async function withTransaction<T>(
  db: DbClient,
  fn: (tx: Prisma.TransactionClient) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  if (!isPooledClient(db)) return fn(db);
  return db.$transaction(fn, {
    isolationLevel: options.isolationLevel,
    timeout: options.timeoutMs ?? 10_000,
    maxWait: 5_000,
  });
}

/** Resolves when the database answers `SELECT 1` within `timeoutMs`; rejects otherwise, never hangs. */
export async function checkDatabase(db: DbClient, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`database did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([db.$queryRaw`SELECT 1`, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
