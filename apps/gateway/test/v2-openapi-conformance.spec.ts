import { readFileSync } from 'node:fs';
import path from 'node:path';
import { compareContracts, type OperationReport } from '../src/v1/openapi/conformance';
import { type ApiContract, extractContract } from '../src/v1/openapi/contract';
import { type GatewayHarness, startGateway } from './harness';

// Facts derived from RunPod's production v2 OpenAPI document by tools/contract/derive-runpod-v2-fixture.ts: every
// operation Runplane serves (all of RunPod's but clusters and their billing, serverless builds and ECR delegations,
// which answer 501).
const reference = JSON.parse(
  readFileSync(path.join(__dirname, 'fixtures/v2-runpod-contract.json'), 'utf8'),
) as ApiContract;

const key = (op: { method: string; path: string }) => `${op.method} ${op.path}`;

function summary(reports: readonly OperationReport[]): string {
  const found = reports.filter((r) => r.found).length;
  const clean = reports.filter((r) => r.problems.length === 0).length;
  const checked = reports.reduce((n, r) => n + r.checked, 0);
  const matched = reports.reduce((n, r) => n + r.matched, 0);
  const pct = (a: number, b: number) => (b === 0 ? '100.0' : ((100 * a) / b).toFixed(1));
  return [
    `RunPod v2 conformance: ${found}/${reports.length} in-scope operations served (${pct(found, reports.length)}%),`,
    `${clean}/${reports.length} fully conformant;`,
    `${matched}/${checked} properties present with a compatible type (${pct(matched, checked)}%).`,
  ].join(' ');
}

describe('RunPod v2 conformance of the served /v2/openapi.json', () => {
  let gateway: GatewayHarness;
  let reports: Map<string, OperationReport>;

  beforeAll(async () => {
    gateway = await startGateway('v2-openapi-conformance');
    const res = await gateway.inject({ method: 'GET', url: '/v2/openapi.json' });
    expect(res.statusCode).toBe(200);
    reports = new Map(compareContracts(reference, extractContract(res.json())).map((r) => [r.operation, r]));
  });

  afterAll(async () => {
    if (reports) {
      const all = [...reports.values()];
      const lines = all.filter((r) => r.problems.length > 0).map((r) => `  ${r.operation}: ${r.problems.join('; ')}`);
      process.stdout.write(`${summary(all)}\n${lines.join('\n')}\n`);
    }
    await gateway.close();
  });

  it('checks a fixture of every in-scope RunPod v2 operation and none that Runplane does not offer', () => {
    expect(reference.operations).toHaveLength(43);
    const paths = reference.operations.map((op) => op.path);
    for (const family of ['/v2/pods', '/v2/serverless', '/v2/templates', '/v2/network-volumes', '/v2/registries']) {
      expect(paths).toContain(family);
    }
    expect(paths).toEqual(expect.arrayContaining(['/v2/account/ssh-keys', '/v2/catalog/gpus', '/v2/billing/pods']));
    expect(paths.filter((p) => /clusters|builds|delegations/.test(p))).toEqual([]);
  });

  it.each(reference.operations.map((op) => [key(op)]))(
    '%s is served with every RunPod property, compatibly typed',
    (operation) => {
      expect(reports.get(operation)?.problems).toEqual([]);
    },
  );
});
