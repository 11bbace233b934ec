// Postgres plumbing for the schema engine stand-in: a pg client tolerant of catalog column
// types, and a Prisma pg adapter factory whose shadow database really is a separate database.
import { randomUUID } from 'node:crypto'
import pg from 'pg'
import { PrismaPg } from '@prisma/adapter-pg'

// pg type oids of `"char"` and `name`: adapter-pg rejects them (prisma/orm#27403), and the
// engine reads them from pg_catalog while introspecting, so they are re-typed as text (25).
const CHAR_OID = 18
const NAME_OID = 19
const TEXT_OID = 25

function retypeCatalogColumns(result) {
  for (const part of Array.isArray(result) ? result : [result]) {
    for (const field of part?.fields ?? []) {
      if (field.dataTypeID === CHAR_OID || field.dataTypeID === NAME_OID) field.dataTypeID = TEXT_OID
    }
  }
  return result
}

/** pg.Client that reports `"char"` and `name` columns as text. */
export class CatalogTolerantClient extends pg.Client {
  query(...args) {
    const callback = typeof args.at(-1) === 'function' ? args.pop() : undefined
    if (callback) {
      return super.query(...args, (err, res) => callback(err, err ? res : retypeCatalogColumns(res)))
    }
    const pending = super.query(...args)
    return pending && typeof pending.then === 'function' ? pending.then(retypeCatalogColumns) : pending
  }
}

/** Splits a postgres URL into pg pool options, optionally pointing at another database. */
export function poolOptions(url, database) {
  const u = new URL(url)
  const schema = u.searchParams.get('schema') ?? undefined
  return {
    host: u.hostname || '127.0.0.1',
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username || 'postgres'),
    password: u.password ? decodeURIComponent(u.password) : undefined,
    database: database ?? decodeURIComponent(u.pathname.slice(1) || 'postgres'),
    options: schema ? `-c search_path=${schema}` : undefined,
    Client: CatalogTolerantClient,
    max: 4,
  }
}

/** Database name of a postgres URL. */
export function databaseName(url) {
  return decodeURIComponent(new URL(url).pathname.slice(1))
}

/** Quotes an identifier for SQL. */
export function quoteIdent(name) {
  return `"${String(name).replace(/"/g, '""')}"`
}

/** Runs fn with a client connected to the server's `postgres` maintenance database. */
export async function withMaintenanceClient(url, fn) {
  const client = new pg.Client({ ...poolOptions(url, 'postgres'), Client: undefined })
  await client.connect()
  try {
    return await fn(client, databaseName(url))
  } finally {
    await client.end()
  }
}

/** Creates the URL's database unless it already exists; returns its name. */
export async function createDatabaseIfMissing(url) {
  return withMaintenanceClient(url, async (client, name) => {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])
    if (!found.rowCount) await client.query(`CREATE DATABASE ${quoteIdent(name)}`)
    return name
  })
}

/**
 * Adapter factory for the engine. The stock connectToShadowDb keeps talking to the main database
 * when built from a connection string and drops the shadow database while its pool is open, so
 * the shadow database is created, connected and dropped here instead.
 */
export class MigrationPgFactory extends PrismaPg {
  constructor(url, shadowUrl) {
    super(poolOptions(url))
    this.url = url
    this.shadowUrl = shadowUrl
  }

  async connectToShadowDb() {
    if (this.shadowUrl) return new PrismaPg(poolOptions(this.shadowUrl)).connect()
    const admin = await this.connect()
    const name = `prisma_shadow_${randomUUID().replace(/-/g, '')}`
    await admin.executeScript(`CREATE DATABASE ${quoteIdent(name)}`)
    const shadow = await new PrismaPg(poolOptions(this.url, name)).connect()
    const disposeShadow = shadow.dispose.bind(shadow)
    shadow.dispose = async () => {
      await disposeShadow()
      await admin.executeScript(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`)
      await admin.dispose()
    }
    return shadow
  }
}
