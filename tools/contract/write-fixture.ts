import { writeFileSync } from 'node:fs';
import type { ApiContract } from '../../apps/gateway/src/v1/openapi/contract';

/** What a contract fixture is made of: the facts, where they came from, and the file to write. */
export interface ContractFixture {
  /** The source OpenAPI document, for its `openapi` and `info.version`. */
  document: unknown;
  contract: ApiContract;
  description: string;
  out: string;
}

/** Writes a contract fixture (the facts with the source's OpenAPI and API versions) and prints what it holds. */
export function writeContractFixture({ document, contract, description, out }: ContractFixture): void {
  const info = (document as { openapi?: unknown; info?: { version?: unknown } }) ?? {};
  const fixture = { description, openapi: info.openapi ?? null, version: info.info?.version ?? null, ...contract };
  writeFileSync(out, `${JSON.stringify(fixture, null, 1)}\n`);
  const properties = Object.values(contract.schemas).reduce((n, s) => n + Object.keys(s.properties).length, 0);
  const schemas = Object.keys(contract.schemas).length;
  process.stdout.write(
    `${contract.operations.length} operations, ${schemas} schemas, ${properties} properties → ${out}\n`,
  );
}
