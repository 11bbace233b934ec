// GraphQL to the job API, on the Kubernetes driver (kwok): an endpoint saved with runpodctl's saveEndpoint text scales
// up from 0 to worker pods that kube-scheduler binds to the ADA_24 pool's nodes; kwok runs no code, so the test speaks
// the worker protocol for each running worker pod (KwokWorkers), and a /run job comes back COMPLETED from one of them.
import { LABELS } from '@runplane/kube';
import { type KubePlatform, rtxPool, startKubePlatform } from '../../apps/scheduler/test/kube-platform';
import { KwokWorkers } from '../../apps/scheduler/test/kwok-workers';
import { finishedJob, jobApi, saveCtlEndpoint } from './graphql-endpoint';

const POOL = 'gql-endpoint-jobs-kube';

describe('an endpoint saved over GraphQL runs jobs on Kubernetes worker pods', () => {
  let k: KubePlatform;
  let workers: KwokWorkers | undefined;

  beforeAll(async () => {
    k = await startKubePlatform(POOL, [rtxPool(1)], {
      jobRouter: true,
      jobRouterEnv: { JOB_TAKE_WAIT_MS: '1000', JOB_HEARTBEAT_INTERVAL_MS: '2000', JOB_SWEEP_INTERVAL_MS: '500' },
    });
  }, 240_000);

  afterAll(async () => {
    await workers?.stop();
    await k?.close();
  }, 120_000);

  it("runs a /run job on a worker pod of runpodctl's serverless create", async () => {
    const template = await k.p.v1('POST', '/templates', {
      name: 'gql-echo',
      imageName: 'runplane/echo-worker:dev',
      isServerless: true,
      containerDiskInGb: 5,
    });
    expect(template.status).toBe(200);
    const endpointId = await saveCtlEndpoint(k.p, 'gql-kube-echo', (template.body as { id: string }).id);
    workers = new KwokWorkers(k, endpointId);
    workers.start();

    expect(await k.p.db.pod.count({ where: { endpointId } })).toBe(0);
    const run = await jobApi(k.p, `${endpointId}/run`, { input: { text: 'on kube' } });
    expect(run.status).toBe(200);
    const result = await finishedJob(k.p, endpointId, run.body.id);
    expect(result).toMatchObject({ status: 'COMPLETED', output: { echo: { text: 'on kube' } } });
    const pods = await k.kube.core.listNamespacedPod({
      namespace: k.namespace,
      labelSelector: `${LABELS.endpointId}=${endpointId}`,
    });
    const served = pods.items.find((pod) => pod.metadata?.labels?.[LABELS.podId] === result.output?.workerId);
    expect(served?.spec?.nodeName).toBe(k.nodes[0]);
    expect(await k.p.db.pod.findUnique({ where: { id: result.output?.workerId } })).toMatchObject({
      endpointId,
      gpuTypeId: 'NVIDIA GeForce RTX 4090',
      gpuCount: 1,
    });
  }, 180_000);
});
