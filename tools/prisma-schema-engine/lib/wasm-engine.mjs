// Loads Prisma's WebAssembly schema engine (@prisma/schema-engine-wasm) in plain Node.
import { readFileSync } from 'node:fs'
import * as glue from '@prisma/schema-engine-wasm/schema_engine_bg'
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils'

// The wasm module reports Rust panics through this global before trapping.
globalThis.PRISMA_WASM_PANIC_REGISTRY = {
  message: '',
  set_message(message) {
    this.message = message
  },
}

let initialised = false

function instantiate() {
  if (initialised) return
  const wasmUrl = new URL('./schema_engine_bg.wasm', import.meta.resolve('@prisma/schema-engine-wasm/schema_engine_bg'))
  const module = new WebAssembly.Module(readFileSync(wasmUrl))
  const instance = new WebAssembly.Instance(module, { './schema_engine_bg.js': glue })
  glue.__wbg_set_wasm(instance.exports)
  instance.exports.__wbindgen_start()
  initialised = true
}

/** Version string of the wasm engine. */
export function engineVersion() {
  instantiate()
  return glue.version()
}

/** Last Rust panic message recorded by the engine, if any. */
export function lastPanicMessage() {
  return globalThis.PRISMA_WASM_PANIC_REGISTRY.message
}

/** Starts an engine over the given schema files, logging to stderr, using the adapter factory. */
export function startEngine(datamodels, adapterFactory) {
  instantiate()
  return glue.SchemaEngine.new(
    { datamodels: datamodels.length ? datamodels : undefined },
    (line) => process.stderr.write(String(line).trimEnd() + '\n'),
    bindMigrationAwareSqlAdapterFactory(adapterFactory),
  )
}
