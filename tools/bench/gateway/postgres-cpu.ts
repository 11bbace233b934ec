// CPU the Postgres backends serving one database spend, read from /proc: the third party of a read path's cost, next
// to the server process and the load generator, so a throughput limit can be told apart from the database's.
import type { DbClient } from '@runplane/db';
import { processCpuMs } from '../cpu-meter';

/** CPU ms each backend connected to the database has spent so far, by pid. */
async function backendCpu(db: DbClient, database: string): Promise<Map<number, number>> {
  const rows = await db.$queryRaw<{ pid: number }[]>`
    SELECT pid FROM pg_stat_activity WHERE datname = ${database} AND pid <> pg_backend_pid()`;
  return new Map(rows.map(({ pid }) => [pid, processCpuMs(pid)]));
}

/**
 * Runs `phase` and returns its result with the CPU ms the database's other backends spent meanwhile (a backend that
 * connected during the phase counts from zero; one that left during it is not counted). 0 where /proc is unreadable.
 */
export async function measurePostgresCpu<T>(
  db: DbClient,
  database: string,
  phase: () => Promise<T>,
): Promise<{ result: T; postgresMs: number }> {
  const before = await backendCpu(db, database);
  const result = await phase();
  const after = await backendCpu(db, database);
  let postgresMs = 0;
  for (const [pid, ms] of after) postgresMs += ms - (before.get(pid) ?? 0);
  return { result, postgresMs };
}
