import { Client } from 'pg';

/** Postgres error code for CREATE DATABASE of a name that exists (a concurrent creator won). */
const DUPLICATE_DATABASE = '42P04';

/** Quotes a SQL identifier. */
function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The database name in a postgres:// URL. */
export function databaseNameOf(databaseUrl: string): string {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  if (name === '') throw new Error('the database URL names no database');
  return name;
}

/** The same server and credentials as `databaseUrl`, pointing at database `name`. */
export function withDatabaseName(databaseUrl: string, name: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}

/** Server-level operations (create, drop, clone databases) over one maintenance connection. */
export class DatabaseAdmin {
  constructor(private readonly client: Client) {}

  /** True when a database of that name exists. */
  async exists(name: string): Promise<boolean> {
    const result = await this.client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return (result.rowCount ?? 0) > 0;
  }

  /** Names of the databases whose name starts with `prefix`. */
  async list(prefix: string): Promise<string[]> {
    const pattern = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const result = await this.client.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname LIKE $1 ORDER BY datname',
      [pattern],
    );
    return result.rows.map((row) => row.datname);
  }

  /** Creates a database, optionally as a copy of `template`; a no-op when it exists. */
  async create(name: string, options: { template?: string } = {}): Promise<void> {
    const template = options.template === undefined ? '' : ` TEMPLATE ${ident(options.template)}`;
    try {
      await this.client.query(`CREATE DATABASE ${ident(name)}${template}`);
    } catch (err) {
      if ((err as { code?: string }).code !== DUPLICATE_DATABASE) throw err;
    }
  }

  /** Drops a database if it exists, disconnecting its sessions. */
  async drop(name: string): Promise<void> {
    await this.client.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`);
  }

  /** Renames a database (it must have no sessions). */
  async rename(from: string, to: string): Promise<void> {
    await this.client.query(`ALTER DATABASE ${ident(from)} RENAME TO ${ident(to)}`);
  }

  /** The database's comment, or undefined when it has none or does not exist. */
  async comment(name: string): Promise<string | undefined> {
    const result = await this.client.query<{ comment: string | null }>(
      "SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1",
      [name],
    );
    return result.rows[0]?.comment ?? undefined;
  }

  /** Sets the database's comment (used to record what a database was built from). */
  async setComment(name: string, comment: string): Promise<void> {
    await this.client.query(`COMMENT ON DATABASE ${ident(name)} IS ${this.client.escapeLiteral(comment)}`);
  }

  /** Holds a server-wide advisory lock (exclusive or shared) for the duration of `fn`. */
  async withLock<T>(key: number, mode: 'exclusive' | 'shared', fn: () => Promise<T>): Promise<T> {
    const suffix = mode === 'shared' ? '_shared' : '';
    await this.client.query(`SELECT pg_advisory_lock${suffix}($1)`, [key]);
    try {
      return await fn();
    } finally {
      await this.client.query(`SELECT pg_advisory_unlock${suffix}($1)`, [key]);
    }
  }
}

/**
 * Runs `fn` with a {@link DatabaseAdmin} connected to the maintenance database (`postgres`) of the
 * server that `serverUrl` points at, and closes the connection afterwards.
 */
export async function withDatabaseAdmin<T>(serverUrl: string, fn: (admin: DatabaseAdmin) => Promise<T>): Promise<T> {
  const client = new Client({
    connectionString: withDatabaseName(serverUrl, 'postgres'),
    connectionTimeoutMillis: 10_000,
  });
  await client.connect();
  try {
    return await fn(new DatabaseAdmin(client));
  } finally {
    await client.end();
  }
}

/** Creates the database named in `databaseUrl` unless it exists (safe to race). */
export async function ensureDatabaseExists(databaseUrl: string): Promise<void> {
  const name = databaseNameOf(databaseUrl);
  await withDatabaseAdmin(databaseUrl, async (admin) => {
    if (!(await admin.exists(name))) await admin.create(name);
  });
}
