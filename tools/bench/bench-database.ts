import { applyMigrations, ensureDatabaseExists, withDatabaseAdmin, withDatabaseName } from '@runplane/db';

/** A migrated database of one benchmark run. */
export interface BenchDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Creates (if missing) and migrates database `name` on the server of `adminDatabaseUrl`. */
export async function createBenchDatabase(adminDatabaseUrl: string, name: string): Promise<BenchDatabase> {
  const url = withDatabaseName(adminDatabaseUrl, name);
  await ensureDatabaseExists(url);
  await applyMigrations(url);
  return { url, drop: () => withDatabaseAdmin(adminDatabaseUrl, (admin) => admin.drop(name)) };
}
