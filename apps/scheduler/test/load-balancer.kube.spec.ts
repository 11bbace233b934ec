// A load-balancing endpoint's worker on Kubernetes: its pod declares PORT and PORT_HEALTH as containerPorts (80 for
// the one its env leaves unset) and gets them in its environment, and the worker's Pod row records where the
// job-router reaches its servers: the pod IP the cluster (kwok) assigned, at those ports.
import { LABELS, WORKLOAD_CONTAINER } from '@runplane/kube';
import { pollUntil } from '@runplane/testing';
import { type KubePlatform, RTX, rtxPool, startKubePlatform } from './kube-platform';

describe('load-balancing workers on Kubernetes', () => {
  let k: KubePlatform;
  let endpointId: string;

  beforeAll(async () => {
    k = await startKubePlatform('sched-kube-lb', [rtxPool(1)]);
    const template = await k.p.v1('POST', '/templates', {
      name: 'lb-worker',
      imageName: 'runplane/lb-worker:dev',
      isServerless: true,
      containerDiskInGb: 5,
      ports: ['8888/http'],
      env: { PORT: '8000' },
    });
    expect(template.status).toBe(200);
    const endpoint = await k.p.v1('POST', '/endpoints', {
      name: 'lb',
      type: 'LOAD_BALANCER',
      templateId: (template.body as { id: string }).id,
      gpuTypeIds: [RTX],
      workersMin: 1,
      workersMax: 1,
      scalerType: 'REQUEST_COUNT',
      scalerValue: 4,
    });
    expect(endpoint.status).toBe(200);
    endpointId = (endpoint.body as { id: string }).id;
  }, 240_000);

  afterAll(async () => {
    await k?.close();
  }, 120_000);

  it('runs the worker pod with its ports and records its addresses at the pod IP', async () => {
    const worker = await pollUntil(
      () => k.p.db.pod.findFirst({ where: { endpointId } }).then((row) => row ?? undefined),
      {
        timeoutMs: 30_000,
        description: 'a worker row',
      },
    );
    const pod = await pollUntil(
      async () => {
        const found = await k.pod(worker.id);
        return found?.status?.podIP ? found : undefined;
      },
      { timeoutMs: 30_000, description: 'the worker pod with an IP' },
    );
    expect(pod.metadata?.labels?.[LABELS.endpointId]).toBe(endpointId);
    const container = pod.spec?.containers.find((c) => c.name === WORKLOAD_CONTAINER);
    expect(container?.ports).toEqual([
      { name: 'http-8888', containerPort: 8888, protocol: 'TCP' },
      { name: 'rp-serve', containerPort: 8000, protocol: 'TCP' },
      { name: 'rp-health', containerPort: 80, protocol: 'TCP' },
    ]);
    expect(container?.env).toEqual(
      expect.arrayContaining([
        { name: 'PORT', value: '8000' },
        { name: 'PORT_HEALTH', value: '80' },
      ]),
    );
    const ip = pod.status?.podIP as string;
    const recorded = await pollUntil(
      async () => {
        const row = await k.p.db.pod.findUnique({ where: { id: worker.id } });
        return row?.serviceAddress ? row : undefined;
      },
      { timeoutMs: 30_000, description: 'the addresses on the Pod row' },
    );
    expect(recorded).toMatchObject({ serviceAddress: `${ip}:8000`, healthAddress: `${ip}:80` });
  }, 90_000);
});
