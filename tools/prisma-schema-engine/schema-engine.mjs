#!/usr/bin/env node
// Runplane's stand-in for Prisma's native `schema-engine` binary (Postgres only).
//
// Prisma downloads that binary from a host that air-gapped machines and clusters cannot reach,
// and no npm package ships it. Prisma does publish the WebAssembly schema engine on npm; this
// executable runs it through @prisma/adapter-pg and speaks the binary's protocol on stdio, so
// `prisma migrate deploy|diff|dev|status` and `db execute` work offline.
// The root `prisma` npm script points PRISMA_SCHEMA_ENGINE_BINARY here.
import { runCliCommand } from './lib/cli-commands.mjs'
import { serve } from './lib/rpc-server.mjs'
import { engineVersion } from './lib/wasm-engine.mjs'

function parseArgs(argv) {
  const parsed = { datamodelPaths: [], datasource: {}, cliCommand: undefined, version: false }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--datamodels') parsed.datamodelPaths.push(argv[++i])
    else if (arg === '--datasource') parsed.datasource = JSON.parse(argv[++i])
    else if (arg === '--enabled-preview-features' || arg === '--extension-types') i++
    else if (arg === '--version' || arg === '-V') parsed.version = true
    else if (arg === 'cli') parsed.cliCommand = argv[++i]
  }
  return parsed
}

const args = parseArgs(process.argv.slice(2))
if (args.version) {
  process.stdout.write(`schema-engine-wasm ${engineVersion()}\n`)
  process.exit(0)
} else if (args.cliCommand) {
  await runCliCommand(args.cliCommand, args.datasource.url)
} else {
  serve(args)
}
