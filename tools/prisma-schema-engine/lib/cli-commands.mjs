// `schema-engine cli <command>` mode: the few one-shot commands the Prisma CLI runs outside JSON-RPC.
import pg from 'pg'
import { createDatabaseIfMissing, poolOptions, quoteIdent, withMaintenanceClient } from './pg-adapter.mjs'

/** Writes one log line in the binary's tracing JSON format to stderr. */
export function logLine(level, message, extra = {}) {
  process.stderr.write(JSON.stringify({ level, fields: { message, ...extra }, target: 'schema_engine::logger' }) + '\n')
}

async function canConnect(url) {
  const client = new pg.Client({ ...poolOptions(url), Client: undefined })
  await client.connect()
  await client.end()
}

const COMMANDS = {
  'can-connect-to-database': canConnect,
  'create-database': async (url) => {
    await createDatabaseIfMissing(url)
    logLine('INFO', 'Database created')
  },
  'drop-database': (url) =>
    withMaintenanceClient(url, (client, name) => client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`)),
}

// Prisma error codes the CLI maps to friendly messages.
function prismaErrorCode(err) {
  if (err?.code === '3D000') return 'P1003'
  if (err?.code === 'ECONNREFUSED' || err?.code === 'ENOTFOUND') return 'P1001'
  return undefined
}

/** Runs a cli command and exits the process with its outcome. */
export async function runCliCommand(command, url) {
  // The CLI discards the first stderr line (the binary's startup line) and parses later ones as JSON.
  logLine('INFO', `Starting schema engine CLI command ${command}`)
  try {
    const run = COMMANDS[command]
    if (!run) throw new Error(`Unsupported schema engine cli command: ${command}`)
    await run(url)
    process.exit(0)
  } catch (err) {
    const errorCode = prismaErrorCode(err)
    logLine('ERROR', err?.message ?? String(err), errorCode ? { error_code: errorCode } : {})
    process.exit(1)
  }
}
