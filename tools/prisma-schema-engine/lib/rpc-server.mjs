// Newline-delimited JSON-RPC 2.0 over stdio, as the native schema-engine binary speaks it.
import readline from 'node:readline'
import { readFileSync } from 'node:fs'
import { createDatabaseIfMissing, MigrationPgFactory } from './pg-adapter.mjs'
import { lastPanicMessage, startEngine } from './wasm-engine.mjs'

// RPC names that differ between the binary and the wasm engine.
const METHOD_ALIASES = { getDatabaseVersion: 'version' }
const SHADOW_CACHE_MISS = /shadow DB must be provided through an external factory/
const FIRST_PRINT_ID = 1_000_000

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

class RpcSession {
  constructor({ datamodelPaths, datasource }) {
    this.datasource = datasource
    const datamodels = datamodelPaths.map((path) => [path, readFileSync(path, 'utf8')])
    // One engine per process: some methods take no shadow-database factory and rely on the
    // engine's migration cache that earlier calls in the same process filled.
    this.engine = startEngine(datamodels, new MigrationPgFactory(datasource.url, datasource.shadowDatabaseUrl))
    this.engine.catch(() => undefined) // reported per request instead of as an unhandled rejection
    this.printAcks = new Map()
    this.nextPrintId = FIRST_PRINT_ID
  }

  // The binary hands `migrate diff --script` output to the CLI as a `print` request and waits for the ack.
  print(content) {
    return new Promise((resolve) => {
      const id = this.nextPrintId++
      this.printAcks.set(id, resolve)
      send({ jsonrpc: '2.0', id, method: 'print', params: { content } })
    })
  }

  /** Resolves a pending print when the message is its acknowledgement. */
  acknowledge(message) {
    const ack = message.method === undefined ? this.printAcks.get(message.id) : undefined
    if (ack === undefined) return false
    this.printAcks.delete(message.id)
    ack()
    return true
  }

  async call(method, params) {
    const engine = await this.engine
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

  async handle({ id, method, params }) {
    try {
      if (method === 'createDatabase') {
        const url = params?.datasource?.tag === 'ConnectionString' ? params.datasource.url : this.datasource.url
        return send({ jsonrpc: '2.0', id, result: { databaseName: await createDatabaseIfMissing(url) } })
      }
      let result = await this.call(method, params)
      if (method === 'diff' && typeof result?.stdout === 'string') {
        const { stdout, ...rest } = result
        if (stdout.length) await this.print(stdout.replace(/\n$/, ''))
        result = rest
      }
      send({ jsonrpc: '2.0', id, result: result ?? null })
    } catch (err) {
      send(errorResponse(id, err))
    }
  }

  async close() {
    try {
      ;(await this.engine).free()
    } catch {
      // the engine never started; nothing to free
    }
  }
}

/** Serves engine requests from stdin until it closes, then exits. */
export function serve(args) {
  const session = new RpcSession(args)
  const lines = readline.createInterface({ input: process.stdin })
  let queue = Promise.resolve() // the binary answers requests strictly in order
  lines.on('line', (line) => {
    if (!line.trim()) return
    const message = JSON.parse(line)
    if (!session.acknowledge(message)) queue = queue.then(() => session.handle(message))
  })
  lines.on('close', async () => {
    await queue
    await session.close()
    process.exit(0)
  })
}
