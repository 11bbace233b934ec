// GraphQL to the job API, on the local driver: an endpoint saved with runpodctl's and runpod-python's own saveEndpoint
// texts scales up from 0 and runs jobs sent to /v2/<id>/run and /runsync through a worker to COMPLETED output.
import runpodSdk from 'runpod-sdk';
import { ECHO_WORKER_TEMPLATE } from '@runplane/testing';
import { type PlatformHarness, startPlatform } from '../../apps/scheduler/test/harness';
import { finishedJob, isFinal, jobApi, saveCtlEndpoint, savePyDefaultEndpoint } from './graphql-endpoint';

const RTX = 'NVIDIA GeForce RTX 4090';
const A4000 = 'NVIDIA RTX A4000';
// One GPU of runpodctl's pool (ADA_24) and one of runpod-python's default pool (AMPERE_16).
const MACHINES = [
  { name: 'rtx-a', gpuProduct: 'NVIDIA-GeForce-RTX-4090', gpuCount: 1, dataCenterId: 'EU-RO-1' },
  { name: 'a4000-a', gpuProduct: 'NVIDIA-RTX-A4000', gpuCount: 1, dataCenterId: 'EU-RO-1' },
];

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

  const workersOf = (endpointId: string) => p.db.pod.findMany({ where: { endpointId } });

  it("runs /run jobs on the ADA_24 worker of runpodctl's serverless create", async () => {
    const endpointId = await saveCtlEndpoint(p, 'gql-ctl-echo', templateId);
    const sdk = runpodSdk(p.secret, { baseUrl: `${p.jobApiUrl}/v2` }).endpoint(endpointId);
    if (!sdk) throw new Error('runpod-sdk returned no endpoint');
    expect(await workersOf(endpointId)).toHaveLength(0);

    const runs = await Promise.all([0, 1].map((index) => sdk.run({ input: { text: `ctl ${index}` } })));
    const results = await Promise.all(runs.map((run) => finishedJob(p, endpointId, (run as { id: string }).id)));
    const workers = await workersOf(endpointId);
    for (const [index, result] of results.entries()) {
      expect(result).toMatchObject({ status: 'COMPLETED', output: { echo: { text: `ctl ${index}` } } });
      expect(workers.map((worker) => worker.id)).toContain(result.output?.workerId);
    }
    expect(workers.every((worker) => worker.gpuTypeId === RTX && worker.gpuCount === 1)).toBe(true);
  }, 180_000);

  it("runs a /runsync job on the AMPERE_16 worker of runpod-python's create_endpoint defaults", async () => {
    const endpointId = await savePyDefaultEndpoint(p, 'gql-py-echo', templateId);

    const sync = await jobApi(p, `${endpointId}/runsync`, { input: { text: 'py sync' } });
    expect(sync.status).toBe(200);
    // /runsync answers COMPLETED when the job ends within its wait, otherwise the job's id to poll (a cold start).
    const result = isFinal(sync.body) ? sync.body : await finishedJob(p, endpointId, sync.body.id);
    expect(result).toMatchObject({ status: 'COMPLETED', output: { echo: { text: 'py sync' } } });
    const worker = await p.db.pod.findUniqueOrThrow({ where: { id: result.output?.workerId } });
    expect(worker).toMatchObject({ endpointId, gpuTypeId: A4000, gpuCount: 1 });
  }, 180_000);
});
