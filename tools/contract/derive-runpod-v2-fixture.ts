/**
 * Derives the RunPod v2 contract fixture used by the gateway's v2 conformance test, as derive-runpod-fixture.ts does
 * for v1: each in-scope path and method, the success status, query parameters, and every property (with its JSON
 * type) of every request and response body schema, `$ref`s resolved. Only these facts are committed, never the
 * source document. The families Runplane does not offer (clusters and their billing, serverless builds, ECR delegations) are left out.
 *
 * Run by hand when the reference document changes:
 *   node -r @swc-node/register tools/contract/derive-runpod-v2-fixture.ts <runpod-openapi-v2.yaml> [out.json]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { type ApiContract, extractContract } from '../../apps/gateway/src/v1/openapi/contract';
import { writeContractFixture } from './write-fixture';

const DEFAULT_OUT = path.join(__dirname, '../../apps/gateway/test/fixtures/v2-runpod-contract.json');

/** Paths of RunPod's v2 that Runplane answers 501 (see apps/gateway/src/v2/fallback.controller.ts). */
const NOT_OFFERED = [
  /^\/v2\/clusters(\/|$)/,
  /^\/v2\/billing\/clusters$/,
  /^\/v2\/serverless\/\{[^}]+\}\/builds(\/|$)/,
  /^\/v2\/registries\/delegations(\/|$)/,
];

/** The contract without the operations Runplane does not offer, and without the schemas only they use. */
function inScope(contract: ApiContract): ApiContract {
  const operations = contract.operations.filter((op) => !NOT_OFFERED.some((pattern) => pattern.test(op.path)));
  const used = new Set(operations.flatMap((op) => [op.request, op.response]).filter((name) => name !== null));
  return {
    operations,
    schemas: Object.fromEntries(Object.entries(contract.schemas).filter(([name]) => used.has(name))),
  };
}

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Required property names of a schema, `allOf` branches and `$ref`s included (RunPod requires `name` inside allOf). */
function requiredOf(schema: unknown, document: unknown, seen: string[] = []): string[] {
  let node = schema;
  if (isNode(node) && typeof node.$ref === 'string') {
    if (seen.includes(node.$ref)) return [];
    seen = [...seen, node.$ref];
    node = node.$ref
      .slice(2)
      .split('/')
      .reduce<unknown>((at, key) => (isNode(at) ? at[key] : undefined), document);
  }
  if (!isNode(node)) return [];
  const own = Array.isArray(node.required) ? node.required.filter((n): n is string => typeof n === 'string') : [];
  const branches = Array.isArray(node.allOf) ? node.allOf : [];
  return [...new Set([...own, ...branches.flatMap((branch) => requiredOf(branch, document, seen))])];
}

/** Request schemas' required fields as RunPod means them, through allOf (the shared extractor reads the top level). */
function withRequiredFromAllOf(contract: ApiContract, document: unknown): ApiContract {
  const components = (document as { components?: { schemas?: Node } }).components?.schemas ?? {};
  for (const [name, schema] of Object.entries(contract.schemas)) {
    if (components[name] !== undefined) schema.required = requiredOf(components[name], document);
  }
  return contract;
}

function main(argv: string[]): number {
  const [source, out = DEFAULT_OUT] = argv;
  if (!source) {
    process.stderr.write('usage: derive-runpod-v2-fixture.ts <runpod-openapi-v2.yaml> [out.json]\n');
    return 2;
  }
  const document: unknown = parse(readFileSync(source, 'utf8'));
  const contract = withRequiredFromAllOf(inScope(extractContract(document)), document);
  writeContractFixture({
    document,
    contract,
    description:
      'RunPod REST API v2 contract facts of the operations Runplane serves (paths, methods, statuses, property types), derived by tools/contract/derive-runpod-v2-fixture.ts',
    out,
  });
  return 0;
}

process.exitCode = main(process.argv.slice(2));
