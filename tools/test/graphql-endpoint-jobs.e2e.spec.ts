// GraphQL to the job API, on the local driver: an endpoint saved with runpodctl's and runpod-python's own saveEndpoint
// texts scales up from 0 and runs jobs sent to /v2/<id>/run and /runsync through a worker to COMPLETED output.
import runpodSdk from 'runpod-sdk';
import { ECHO_WORKER_TEMPLATE, pollUntil } from '@runplane/testing';
// The rule's `graphql/*` pattern (graphql-js) also matches this fixtures folder's path; nothing here imports graphql-js.
// eslint-disable-next-line @typescript-eslint/no-restricted-imports
import {
  CTL_SAVE_ENDPOINT,
  ctlSaveEndpointVariables,
  pyCreateEndpointDefaults,
} from '../../apps/gateway/test/fixtures/graphql/runpod-texts';
import { type PlatformHarness, startPlatform } from '../../apps/scheduler/test/harness';

const RTX = 'NVIDIA GeForce RTX 4090';
const A4000 = 'NVIDIA RTX A4000';
// One GPU of runpodctl's pool (ADA_24) and one of runpod-python's default pool (AMPERE_16).
const MACHINES = [
  { name: 'rtx-a', gpuProduct: 'NVIDIA-GeForce-RTX-4090', gpuCount: 1, dataCenterId: 'EU-RO-1' },
  { name: 'a4000-a', gpuProduct: 'NVIDIA-RTX-A4000', gpuCount: 1, dataCenterId: 'EU-RO-1' },
];

type JobStatus = { id: string; status: string; output?: { echo: unknown; workerId: string } };
const FINAL = ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'];

describe('an endpoint saved over GraphQL runs jobs through the job API', () => {
  let p: PlatformHarness;
  let templateId: string;

  beforeAll(async () => {
    p = await startPlatform('gql-endpoint-jobs', {
      jobRouter: true,
      jobRouterEnv: { JOB_TAKE_WAIT_MS: '1000', JOB_HEARTBEAT_INTERVAL_MS: '2000', JOB_SWEEP_INTERVAL_MS: '500' },
      scheduler: { SCHEDULER_LOCAL_MACHINES: JSON.stringify(MACHINES) },
    });
    const template = await p.v1('POST', '/templates', ECHO_WORKER_TEMPLATE);
    expect(template.status).toBe(200);
    templateId = (template.body as { id: string }).id;
  }, 180_000);

  afterAll(async () => {
    await p?.close();
  }, 60_000);

  async function graphql(query: string, variables?: unknown): Promise<Record<string, Record<string, unknown>>> {
    const response = await fetch(`${p.gatewayUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, ...(variables === undefined ? {} : { variables }) }),
    });
    const body = (await response.json()) as { data: Record<string, Record<string, unknown>>; errors?: unknown };
    expect({ status: response.status, errors: body.errors }).toEqual({ status: 200, errors: undefined });
    return body.data;
  }

  const jobApi = (path: string, body?: unknown) =>
    fetch(`${p.jobApiUrl}/v2/${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: p.secret, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as JobStatus }));

  const finished = (endpointId: string, id: string) =>
    pollUntil(
      async () => {
        const answer = await jobApi(`${endpointId}/status/${id}`);
        return FINAL.includes(answer.body.status) ? answer.body : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 200, description: `job ${id} to finish` },
    );

  const workersOf = (endpointId: string) => p.db.pod.findMany({ where: { endpointId } });

  it("runs /run jobs on the ADA_24 worker of runpodctl's serverless create", async () => {
    const saved = await graphql(CTL_SAVE_ENDPOINT, ctlSaveEndpointVariables('gql-ctl-echo', templateId));
    const endpointId = String(saved['saveEndpoint']?.['id']);
    expect(saved['saveEndpoint']).toMatchObject({ templateId, gpuIds: 'ADA_24', workersMin: 0, workersMax: 2 });
    const sdk = runpodSdk(p.secret, { baseUrl: `${p.jobApiUrl}/v2` }).endpoint(endpointId);
    if (!sdk) throw new Error('runpod-sdk returned no endpoint');
    expect(await workersOf(endpointId)).toHaveLength(0);

    const runs = await Promise.all([0, 1].map((index) => sdk.run({ input: { text: `ctl ${index}` } })));
    const results = await Promise.all(runs.map((run) => finished(endpointId, (run as { id: string }).id)));
    const workers = await workersOf(endpointId);
    for (const [index, result] of results.entries()) {
      expect(result).toMatchObject({ status: 'COMPLETED', output: { echo: { text: `ctl ${index}` } } });
      expect(workers.map((worker) => worker.id)).toContain(result.output?.workerId);
    }
    expect(workers.every((worker) => worker.gpuTypeId === RTX && worker.gpuCount === 1)).toBe(true);
  }, 180_000);

  it("runs a /runsync job on the AMPERE_16 worker of runpod-python's create_endpoint defaults", async () => {
    const saved = await graphql(pyCreateEndpointDefaults('gql-py-echo', templateId));
    const endpointId = String(saved['saveEndpoint']?.['id']);
    expect(saved['saveEndpoint']).toMatchObject({ templateId, gpuIds: 'AMPERE_16', scalerType: 'QUEUE_DELAY' });

    const sync = await jobApi(`${endpointId}/runsync`, { input: { text: 'py sync' } });
    expect(sync.status).toBe(200);
    // /runsync answers COMPLETED when the job ends within its wait, otherwise the job's id to poll (a cold start).
    const result = FINAL.includes(sync.body.status) ? sync.body : await finished(endpointId, sync.body.id);
    expect(result).toMatchObject({ status: 'COMPLETED', output: { echo: { text: 'py sync' } } });
    const worker = await p.db.pod.findUniqueOrThrow({ where: { id: result.output?.workerId } });
    expect(worker).toMatchObject({ endpointId, gpuTypeId: A4000, gpuCount: 1 });
  }, 180_000);
});
