// The scheduler's metrics on the Kubernetes driver (kwok), after a scripted workload: an endpoint scales from 0 to a
// worker pod and back, a Pod is refused for want of GPUs, and the apiserver becomes unreachable for a moment (through
// a TCP proxy), so the informers restart. Its /metrics then count the API requests by verb, resource and code and the
// watch restarts, and export every metric the dashboards and alerts query of a scheduler with workers.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ECHO_WORKER_TEMPLATE, kubeTestEnv, pollUntil, TcpProxy } from '@runplane/testing';
import { createQueueDelayEndpoint } from '../../apps/scheduler/test/echo-endpoint';
import { type KubePlatform, RTX, rtxPool, startKubePlatform } from '../../apps/scheduler/test/kube-platform';
import { KwokWorkers } from '../../apps/scheduler/test/kwok-workers';
import {
  alertRules,
  dashboardQueries,
  metricNames,
  SCHEDULER_WORKLOAD_METRICS,
} from '../observability/monitoring-files';
import { exposedNames, sample } from './observability-platform';

const POOL = 'sched-kube-metrics';

describe('scheduler metrics on the Kubernetes driver after a scripted workload', () => {
  let k: KubePlatform;
  let proxy: TcpProxy;
  let dir: string;
  let endpointId: string;
  let workers: KwokWorkers | undefined;

  beforeAll(async () => {
    const env = kubeTestEnv();
    proxy = await TcpProxy.start(env.connection.server);
    dir = mkdtempSync(join(tmpdir(), 'runplane-kube-metrics-'));
    const kubeconfig = join(dir, 'kubeconfig.yaml');
    writeFileSync(kubeconfig, proxy.kubeconfigVia(env.kubeconfig));
    k = await startKubePlatform(POOL, [rtxPool(1)], {
      jobRouter: true,
      jobRouterEnv: { JOB_TAKE_WAIT_MS: '1000', JOB_HEARTBEAT_INTERVAL_MS: '2000', JOB_SWEEP_INTERVAL_MS: '500' },
      scheduler: { KUBECONFIG: kubeconfig },
    });
    const template = await k.p.v1('POST', '/templates', { ...ECHO_WORKER_TEMPLATE, name: 'metrics-echo' });
    expect(template.status).toBe(200);
    endpointId = await createQueueDelayEndpoint(k.p.v1, template, { gpuTypeId: RTX, workersMax: 1 });
    workers = new KwokWorkers(k, endpointId);
    workers.start();
  }, 240_000);

  afterAll(async () => {
    proxy?.restore();
    await workers?.stop();
    await k?.close();
    await proxy?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  /** Every metric name the scrapes of this file have seen samples of (workers come and go). */
  const seen = new Set<string>();
  const scrape = async (): Promise<string> => {
    const text = await k.p.schedulerMetrics();
    for (const name of exposedNames(text)) seen.add(name);
    return text;
  };
  const scraped = (description: string, ready: (text: string) => boolean) =>
    pollUntil(
      async () => {
        const text = await scrape();
        return ready(text) && text;
      },
      { timeoutMs: 60_000, intervalMs: 200, description },
    );
  const kubeRequests = (text: string, labels: Record<string, string>) =>
    sample(text, 'runplane_kube_requests_total', { service: 'scheduler', ...labels }) ?? 0;

  it('scales an endpoint from 0 to a worker pod and back, counting the API requests that did it', async () => {
    const response = await fetch(`${k.p.jobApiUrl}/v2/${endpointId}/run`, {
      method: 'POST',
      headers: { authorization: k.p.secret, 'content-type': 'application/json' },
      body: JSON.stringify({ input: { text: 'metrics' } }),
    });
    const { id } = (await response.json()) as { id: string };
    const up = await scraped('the worker pod among the workers', (body) =>
      ['initializing', 'running', 'idle'].some(
        (state) => sample(body, 'runplane_workers', { endpoint: endpointId, state }) === 1,
      ),
    );
    expect(sample(up, 'runplane_pods', { desired: 'RUNNING' })).toBe(1);
    await pollUntil(
      async () => {
        const status = await fetch(`${k.p.jobApiUrl}/v2/${endpointId}/status/${id}`, {
          headers: { authorization: k.p.secret },
        });
        return ((await status.json()) as { status: string }).status === 'COMPLETED';
      },
      { timeoutMs: 60_000, description: 'the job to complete on a worker pod' },
    );
    // The decision is counted when it is made, the pod's delete request once the apiserver has answered it.
    const text = await scraped(
      'the idle worker pod removed',
      (body) =>
        sample(body, 'runplane_autoscaler_decisions_total', { direction: 'down', reason: 'idle_timeout' }) === 1 &&
        kubeRequests(body, { verb: 'delete', resource: 'pods', code: '200' }) >= 1,
    );
    expect(
      sample(text, 'runplane_autoscaler_decisions_total', {
        direction: 'up',
        reason: 'scale_from_zero',
        type: 'queue',
      }),
    ).toBe(1);
    // The worker pod was created, and deleted once idle; the nodes and pods were listed to fill the informers.
    expect(kubeRequests(text, { verb: 'create', resource: 'pods', code: '201' })).toBeGreaterThanOrEqual(1);
    expect(kubeRequests(text, { verb: 'delete', resource: 'pods', code: '200' })).toBeGreaterThanOrEqual(1);
    expect(kubeRequests(text, { verb: 'list', resource: 'nodes', code: '200' })).toBeGreaterThanOrEqual(1);
    expect(kubeRequests(text, { verb: 'list', resource: 'pods', code: '200' })).toBeGreaterThanOrEqual(1);
  }, 120_000);

  it('counts a Pod refused for want of GPUs', async () => {
    const refused = await k.p.v1('POST', '/pods', {
      name: 'too-big',
      imageName: 'runpod/base:0.1',
      gpuTypeIds: [RTX],
      gpuCount: 2,
    });
    expect(refused.status).toBe(503);
    const text = await scrape();
    expect(sample(text, 'runplane_placement_failures_total', { reason: 'no_capacity', kind: 'pod' })).toBe(1);
  }, 60_000);

  it('counts the watch restarts and unanswered requests of an apiserver outage', async () => {
    const before = await scrape();
    expect(sample(before, 'runplane_kube_watch_restarts_total', { resource: 'pods' })).toBeUndefined();
    proxy.cut();
    const during = await scraped('the pods and nodes informers restarted', (text) =>
      ['pods', 'nodes'].every(
        (resource) => (sample(text, 'runplane_kube_watch_restarts_total', { resource }) ?? 0) >= 1,
      ),
    );
    proxy.restore();
    // The watches the outage cut ended without an answer.
    expect(kubeRequests(during, { verb: 'watch', resource: 'pods', code: 'error' })).toBeGreaterThanOrEqual(1);
    // After the outage the informers resume: a Pod asked for now is created in the cluster.
    const created = await k.p.v1('POST', '/pods', {
      name: 'after-outage',
      imageName: 'runpod/base:0.1',
      gpuTypeIds: [RTX],
      gpuCount: 1,
    });
    expect(created.status).toBe(201);
    const podId = (created.body as { id: string }).id;
    await pollUntil(async () => (await k.pod(podId)) !== undefined, {
      description: 'the Pod created after the outage',
    });
  }, 120_000);

  it('exports every metric the dashboards and alerts query of a scheduler with workers', async () => {
    await scrape();
    const exposed = seen;
    for (const metric of SCHEDULER_WORKLOAD_METRICS) expect([metric, exposed.has(metric)]).toEqual([metric, true]);
    // The scheduler dashboard's every query reads this scheduler's metrics (`up` is Prometheus' own).
    const queried = (dashboardQueries().get('scheduler-kubernetes.json') ?? []).flatMap((expr) => metricNames(expr));
    expect(queried.filter((metric) => metric !== 'up' && !exposed.has(metric))).toEqual([]);
    const alerted = alertRules()
      .filter((rule) => rule.expr.includes('service="scheduler"'))
      .flatMap((rule) => metricNames(rule.expr));
    expect(alerted.filter((metric) => !exposed.has(metric))).toEqual([]);
  }, 60_000);
});
