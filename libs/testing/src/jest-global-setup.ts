import { dropStaleTestDatabases, prepareTemplateDatabase } from './database';

/** Jest global setup: (re)builds the migrated template database test databases are cloned from. */
export default async function globalSetup(): Promise<void> {
  await prepareTemplateDatabase();
  await dropStaleTestDatabases();
}
