import { type ApiContract, type ContractOperation, type ContractSchema, pathShape } from './contract';
import { type PropertyTypes, typesCompatible } from './schema-paths';

/** How one reference operation fares against ours: what was checked and what is wrong. */
export interface OperationReport {
  operation: string;
  found: boolean;
  /** Properties checked (query parameters, request and response body properties). */
  checked: number;
  /** Checked properties present with a compatible type. */
  matched: number;
  problems: string[];
}

const EMPTY: ContractSchema = { required: [], properties: {} };

class OperationChecker {
  checked = 0;
  matched = 0;
  readonly problems: string[] = [];

  /** Every property of `theirs` must exist in `ours` with a compatible type. */
  properties(where: string, theirs: PropertyTypes, ours: PropertyTypes, acceptNull: boolean): void {
    for (const [path, types] of Object.entries(theirs)) {
      this.checked += 1;
      const mine = ours[path];
      if (!mine) {
        this.problems.push(`${where} ${path}: missing (RunPod: ${types.join('|') || 'any'})`);
      } else if (!typesCompatible(types, mine)) {
        this.problems.push(`${where} ${path}: type ${mine.join('|') || 'any'}, RunPod ${types.join('|')}`);
      } else if (acceptNull && types.includes('null') && mine.length > 0 && !mine.includes('null')) {
        this.problems.push(`${where} ${path}: RunPod clients may send null, Runplane refuses it`);
      } else {
        this.matched += 1;
      }
    }
  }

  /** A field Runplane requires must be required by RunPod too, or RunPod clients omitting it get a 400. */
  required(theirs: ContractSchema, ours: ContractSchema): void {
    for (const name of ours.required) {
      if (!theirs.required.includes(name))
        this.problems.push(`request $.${name}: required by Runplane, optional in RunPod`);
    }
  }
}

function checkOperation(
  theirs: ContractOperation,
  ours: ContractOperation,
  reference: ApiContract,
  served: ApiContract,
): OperationChecker {
  const checker = new OperationChecker();
  const schema = (contract: ApiContract, name: string | null) => (name ? (contract.schemas[name] ?? EMPTY) : EMPTY);
  if (theirs.successStatus !== null && ours.successStatus !== theirs.successStatus) {
    checker.problems.push(`success status ${ours.successStatus}, RunPod ${theirs.successStatus}`);
  }
  // Where RunPod documents no body (start/stop/reset), Runplane may still send one: runpodctl parses the Pod.
  if (theirs.responseContentType !== null && theirs.responseContentType !== ours.responseContentType) {
    checker.problems.push(`response content type ${ours.responseContentType}, RunPod ${theirs.responseContentType}`);
  }
  for (const [name, types] of Object.entries(theirs.query)) {
    const mine = ours.query[name];
    if (!mine) {
      checker.checked += Object.keys(types).length;
      checker.problems.push(`query ${name}: missing`);
    } else {
      checker.properties(`query ${name}`, types, mine, false);
    }
  }
  const theirRequest = schema(reference, theirs.request);
  const ourRequest = schema(served, ours.request);
  if (theirs.request && !ours.request) checker.problems.push('request body: not accepted');
  checker.properties('request', theirRequest.properties, ourRequest.properties, true);
  checker.required(theirRequest, ourRequest);
  checker.properties(
    'response',
    schema(reference, theirs.response).properties,
    schema(served, ours.response).properties,
    false,
  );
  return checker;
}

/** Compares every operation of the reference contract with the served one. */
export function compareContracts(reference: ApiContract, served: ApiContract): OperationReport[] {
  const byKey = new Map(served.operations.map((op) => [`${op.method} ${pathShape(op.path)}`, op]));
  return reference.operations.map((theirs) => {
    const operation = `${theirs.method} ${theirs.path}`;
    const ours = byKey.get(`${theirs.method} ${pathShape(theirs.path)}`);
    if (!ours) {
      return {
        operation,
        found: false,
        checked: countProperties(theirs, reference),
        matched: 0,
        problems: ['missing operation'],
      };
    }
    const checker = checkOperation(theirs, ours, reference, served);
    return { operation, found: true, checked: checker.checked, matched: checker.matched, problems: checker.problems };
  });
}

/** Number of properties an operation's query, request and response carry. */
function countProperties(op: ContractOperation, contract: ApiContract): number {
  const size = (name: string | null) => (name ? Object.keys(contract.schemas[name]?.properties ?? {}).length : 0);
  const query = Object.values(op.query).reduce((n, types) => n + Object.keys(types).length, 0);
  return query + size(op.request) + size(op.response);
}

/** One-paragraph coverage summary of a comparison. */
export function coverageSummary(reports: readonly OperationReport[]): string {
  const found = reports.filter((r) => r.found).length;
  const checked = reports.reduce((n, r) => n + r.checked, 0);
  const matched = reports.reduce((n, r) => n + r.matched, 0);
  const clean = reports.filter((r) => r.problems.length === 0).length;
  const pct = (a: number, b: number) => (b === 0 ? '100.0' : ((100 * a) / b).toFixed(1));
  return [
    `RunPod v1 conformance: ${found}/${reports.length} operations served (${pct(found, reports.length)}%),`,
    `${clean}/${reports.length} fully conformant;`,
    `${matched}/${checked} properties present with a compatible type (${pct(matched, checked)}%).`,
  ].join(' ');
}
