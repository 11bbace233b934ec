/**
 * `npm run runplane -- <command>`: the operator CLI. The environment is read here, once:
 * DATABASE_URL (default: the local Postgres at 127.0.0.1:5432, database `runplane`) and
 * RUNPLANE_CATALOG_FILE.
 */
import { createAccountsServices, createWorkerTokensService } from '@runplane/accounts';
import { DomainError } from '@runplane/contracts';
import { createPrismaClient, ensureDatabaseExists } from '@runplane/db';
import { resolvePostgres } from '../platform/postgres';
import { ServiceUnavailableError } from '../platform/services';
import { CliError, type CliContext } from './commands';
import { buildProgram } from './program';

const DATABASE_URL = process.env.DATABASE_URL?.trim() || undefined;
const CATALOG_FILE = process.env.RUNPLANE_CATALOG_FILE?.trim() || undefined;

const io = {
  out: (text: string): void => void process.stdout.write(`${text}\n`),
  err: (text: string): void => void process.stderr.write(`${text}\n`),
};

async function withContext(run: (ctx: CliContext) => Promise<void>): Promise<void> {
  const postgres = await resolvePostgres({
    databaseUrl: DATABASE_URL,
    localHost: '127.0.0.1',
    localPort: 5432,
    databaseName: 'runplane',
    embeddedDataDir: undefined,
    ensureDatabase: ensureDatabaseExists,
    log: () => undefined,
  });
  const db = createPrismaClient(postgres.url);
  try {
    await run({
      ...io,
      db,
      databaseUrl: postgres.url,
      ...createAccountsServices(db),
      workerTokens: createWorkerTokensService(db),
    });
  } finally {
    await db.$disconnect();
  }
}

/** Operator mistakes and domain refusals get one line; anything else keeps its stack. */
function report(error: unknown): void {
  const known = error instanceof CliError || error instanceof ServiceUnavailableError || error instanceof DomainError;
  const text = error instanceof Error ? (known ? error.message : (error.stack ?? error.message)) : String(error);
  io.err(`error: ${text}`);
}

buildProgram(withContext, CATALOG_FILE)
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    report(error);
    process.exitCode = 1;
  });
