// Newline-delimited JSON-RPC 2.0 over stdio, as the native schema-engine binary speaks it.
import readline from 'node:readline'
import { readFileSync } from 'node:fs'
import { createDatabaseIfMissing, MigrationPgFactory } from './pg-adapter.mjs'
import { lastPanicMessage, startEngine } from './wasm-engine.mjs'

// RPC names that differ between the binary and the wasm engine.
const METHOD_ALIASES = { getDatabaseVersion: 'version' }
const SHADOW_CACHE_MISS = /shadow DB must be provided through an external factory/

const send = (message) => process.stdout.write(JSON.stringify(message) + '\n')

function errorResponse(id, err) {
  const panic = err instanceof WebAssembly.RuntimeError || /unreachable|panicked/i.test(String(err?.message))
  const message = panic ? lastPanicMessage() || err.message : err?.message ?? String(err)
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: 4466,
      message: 'An error happened. Check the data field for details.',
      data: { is_panic: panic, message, meta: err?.meta ?? null, error_code: err?.code ?? null },
    },
  }
}

/** Serves engine requests from stdin until it closes. */
export function serve({ datamodelPaths, datasource }) {
  const datamodels = datamodelPaths.map((path) => [path, readFileSync(path, 'utf8')])
  // One engine per process: some methods take no shadow-database factory and rely on the
  // engine's migration cache that earlier calls in the same process filled.
  const enginePromise = startEngine(datamodels, new MigrationPgFactory(datasource.url, datasource.shadowDatabaseUrl))
  enginePromise.catch(() => undefined) // reported per request instead of as an unhandled rejection
  const printAcks = new Map()
  let nextPrintId = 1_000_000

  // The binary hands `migrate diff --script` output to the CLI as a `print` request, then waits for the ack.
  const print = (content) =>
    new Promise((resolve) => {
      const id = nextPrintId++
      printAcks.set(id, resolve)
      send({ jsonrpc: '2.0', id, method: 'print', params: { content } })
    })

  async function call(engine, method, params) {
    const name = METHOD_ALIASES[method] ?? method
    if (typeof engine[name] !== 'function') throw new Error(`Method ${method} is not supported by the wasm schema engine`)
    try {
      return await engine[name](params ?? undefined)
    } catch (err) {
      // After a migration-cache miss, warm the cache through the shadow database and retry once.
      if (!SHADOW_CACHE_MISS.test(err?.message ?? '') || !params?.migrationsList) throw err
      const filters = params.filters ?? { externalTables: [], externalEnums: [] }
      await engine.diagnoseMigrationHistory({ migrationsList: params.migrationsList, optInToShadowDatabase: true, filters })
      return engine[name](params)
    }
  }

  async function handle({ id, method, params }) {
    try {
      if (method === 'createDatabase') {
        const url = params?.datasource?.tag === 'ConnectionString' ? params.datasource.url : datasource.url
        return send({ jsonrpc: '2.0', id, result: { databaseName: await createDatabaseIfMissing(url) } })
      }
      let result = await call(await enginePromise, method, params)
      if (method === 'diff' && typeof result?.stdout === 'string') {
        const { stdout, ...rest } = result
        if (stdout.length) await print(stdout.replace(/\n$/, ''))
        result = rest
      }
      send({ jsonrpc: '2.0', id, result: result ?? null })
    } catch (err) {
      send(errorResponse(id, err))
    }
  }

  const lines = readline.createInterface({ input: process.stdin })
  let queue = Promise.resolve() // the binary answers requests strictly in order
  lines.on('line', (line) => {
    if (!line.trim()) return
    const message = JSON.parse(line)
    if (message.method === undefined && printAcks.has(message.id)) {
      printAcks.get(message.id)()
      printAcks.delete(message.id)
      return
    }
    queue = queue.then(() => handle(message))
  })
  lines.on('close', async () => {
    await queue
    try {
      ;(await enginePromise).free()
    } catch {
      // engine never started; nothing to free
    }
    process.exit(0)
  })
}
