import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type ApiContract, extractContract } from '../src/v1/openapi/contract';
import { compareContracts, coverageSummary, type OperationReport } from '../src/v1/openapi/conformance';
import { type GatewayHarness, startGateway } from './harness';

// Facts derived from RunPod's v1 OpenAPI document by tools/contract/derive-runpod-fixture.ts.
const reference = JSON.parse(
  readFileSync(path.join(__dirname, 'fixtures/runpod-v1-contract.json'), 'utf8'),
) as ApiContract;

describe('RunPod v1 conformance of the served /v1/openapi.json', () => {
  let gateway: GatewayHarness;
  let reports: Map<string, OperationReport>;

  beforeAll(async () => {
    gateway = await startGateway('openapi-conformance');
    const res = await gateway.inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const served = extractContract(res.json());
    reports = new Map(compareContracts(reference, served).map((report) => [report.operation, report]));
  });

  afterAll(async () => {
    if (reports) {
      const all = [...reports.values()];
      const lines = all
        .filter((r) => r.problems.length > 0)
        .map((r) => `  ${r.operation}: ${r.problems.length} problem(s)`);
      process.stdout.write(`${coverageSummary(all)}\n${lines.join('\n')}\n`);
    }
    await gateway.close();
  });

  it('checks a fixture that covers the whole RunPod contract', () => {
    expect(reference.operations.length).toBeGreaterThanOrEqual(37);
    expect(Object.keys(reference.schemas)).toEqual(
      expect.arrayContaining(['Pod', 'Endpoint', 'Template', 'PodCreateInput']),
    );
  });

  it.each(reference.operations.map((op) => [`${op.method} ${op.path}`]))(
    '%s exists with every RunPod property, compatibly typed',
    (operation) => {
      const report = reports.get(operation);
      expect(report?.problems).toEqual([]);
    },
  );
});
