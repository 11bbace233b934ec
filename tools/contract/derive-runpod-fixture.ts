/**
 * Derives the RunPod v1 contract fixture used by the gateway's conformance test: each path and method, the
 * success status, query parameters, and every property (with its JSON type) of every request and response
 * body schema, `$ref`s resolved. Only these facts are committed, never the source document.
 *
 * Run by hand when the reference document changes:
 *   node -r @swc-node/register tools/contract/derive-runpod-fixture.ts <runpod-openapi-v1.json> [out.json]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { extractContract } from '../../apps/gateway/src/v1/openapi/contract';
import { writeContractFixture } from './write-fixture';

const DEFAULT_OUT = path.join(__dirname, '../../apps/gateway/test/fixtures/runpod-v1-contract.json');

function main(argv: string[]): number {
  const [source, out = DEFAULT_OUT] = argv;
  if (!source) {
    process.stderr.write('usage: derive-runpod-fixture.ts <runpod-openapi-v1.json> [out.json]\n');
    return 2;
  }
  const document: unknown = JSON.parse(readFileSync(source, 'utf8'));
  const contract = extractContract(document);
  writeContractFixture({
    document,
    contract,
    description:
      'RunPod REST API v1 contract facts (paths, methods, statuses, property types), derived by tools/contract/derive-runpod-fixture.ts',
    out,
  });
  return 0;
}

process.exitCode = main(process.argv.slice(2));
