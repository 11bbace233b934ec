import { createHash } from 'node:crypto';

/**
 * Distinct query texts a process prepares at most. Every pooled connection keeps each statement it prepared (pg frees
 * none), so texts that vary without end, as an `IN` list of every length, must not all become statements.
 */
export const MAX_PREPARED_STATEMENTS = 1000;

/**
 * Names for the adapter's prepared statements, one per distinct query text: a connection parses and plans a query
 * shape once, then only binds and runs it. After {@link MAX_PREPARED_STATEMENTS} texts, new ones get the empty name,
 * which in Postgres's protocol is the unnamed statement: parsed each time, as every query was without names.
 */
export function preparedStatementNames(max = MAX_PREPARED_STATEMENTS): (query: { sql: string }) => string {
  const names = new Map<string, string>();
  return ({ sql }) => {
    const known = names.get(sql);
    if (known !== undefined) return known;
    if (names.size >= max) return '';
    const name = `rp_${createHash('sha1').update(sql).digest('base64url')}`;
    names.set(sql, name);
    return name;
  };
}

/**
 * Whether a connection URL may use prepared statements, and the URL pg gets. As with Prisma's own engines,
 * `pgbouncer=true` turns them off, for a PgBouncer in transaction mode older than 1.21 (or without
 * `max_prepared_statements`), which would run a connection's statements on other server connections.
 */
export function preparedStatementsOf(databaseUrl: string): { url: string; prepared: boolean } {
  if (!/^postgres(ql)?:/.test(databaseUrl)) return { url: databaseUrl, prepared: true };
  const url = new URL(databaseUrl);
  const pgbouncer = url.searchParams.get('pgbouncer');
  if (pgbouncer === null) return { url: databaseUrl, prepared: true };
  url.searchParams.delete('pgbouncer');
  return { url: url.toString(), prepared: pgbouncer !== 'true' };
}
