import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createKubeClients, type KubeClients } from '@runplane/kube';
import {
  createTestNamespace,
  KubeApiError,
  KubeTestClient,
  kubeTestEnv,
  type KubeTestEnv,
  NODE_POOL_LABEL,
  type NodePoolSpec,
  registerNodePools,
  removeNodePool,
  type TestNamespace,
} from '@runplane/testing';
import { stringify } from 'yaml';
import { type KubeObject, ofKind, RELEASE, render, serviceEnv, SERVICES } from './helm-chart';

/**
 * The Helm chart's identities on the test cluster: its ServiceAccounts and RBAC applied to a release namespace (the
 * control plane's) and a workload namespace, and TokenRequest tokens for them, so a spec can act exactly as a
 * service of an installed release would. {@link ChartFixture} holds what one chart spec sets up on the cluster and
 * removes it all.
 */

/** The ServiceAccount name of a chart service. */
export function serviceAccountName(service: (typeof SERVICES)[number]): string {
  return `${RELEASE}-runplane-${service}`;
}

/** Where a spec renders the chart: the release namespace, the workload namespace and the kwok pool of its workloads. */
export interface ChartTarget {
  release: string;
  /** The workload namespace; the release namespace when absent. */
  workloads?: string;
  pool: string;
  /** `--set` pairs beyond the namespaces, the pool and `workloads.requestContainerDisk=false`. */
  set?: string[];
}

/** The chart rendered for a {@link ChartTarget}. */
export interface ChartIdentity {
  objects: KubeObject[];
  /** What was applied: every ServiceAccount, the (Cluster)Roles, bindings and PriorityClasses. */
  applied: KubeObject[];
  /** The scheduler's env as the chart sets it (driver, namespace, node selector, Lease, S3 endpoints ...). */
  schedulerEnv: Record<string, string>;
}

/** The applied kinds: ServiceAccounts, RBAC and the PriorityClasses. */
const IDENTITY_KINDS = ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding', 'PriorityClass'];

const SCHEDULER_KEYS = [
  'SCHEDULER_DRIVER',
  'KUBE_NAMESPACE',
  'KUBE_NODE_SELECTOR',
  'KUBE_APPLY_PRIORITY_CLASSES',
  'KUBE_LEADER_LEASE',
  'KUBE_REQUEST_CONTAINER_DISK',
];

/** Collection path of a rendered object. */
export function collection(object: KubeObject): string {
  const [group, version] = object.apiVersion.includes('/') ? object.apiVersion.split('/') : ['', object.apiVersion];
  const plural = `${object.kind.toLowerCase()}${object.kind.endsWith('s') ? 'es' : 's'}`;
  const base = group ? `/apis/${group}/${version}` : `/api/${version}`;
  return object.metadata.namespace ? `${base}/namespaces/${object.metadata.namespace}/${plural}` : `${base}/${plural}`;
}

/** Creates the object; one that already exists (a PriorityClass of another release) is kept. */
export async function createIgnoringConflict(client: KubeTestClient, object: KubeObject): Promise<void> {
  await client.create(collection(object), object).catch((error: unknown) => {
    if (!(error instanceof KubeApiError && error.status === 409)) throw error;
  });
}

/** Renders the chart for the target and applies its ServiceAccounts and RBAC (PriorityClasses may exist). */
export async function applyChartIdentity(env: KubeTestEnv, target: ChartTarget): Promise<ChartIdentity> {
  const objects = await render({
    namespace: target.release,
    set: [
      ...(target.workloads === undefined ? [] : [`workloads.namespace=${target.workloads}`]),
      `workloads.nodeSelector.${NODE_POOL_LABEL.replace(/\./g, '\\.')}=${target.pool}`,
      'workloads.requestContainerDisk=false',
      ...(target.set ?? []),
    ],
  });
  const applied = IDENTITY_KINDS.flatMap((kind) => ofKind(objects, kind));
  for (const object of applied) await createIgnoringConflict(env.client, object);
  const chartEnv = serviceEnv(objects, 'scheduler');
  const volumeS3 = Object.keys(chartEnv).filter((key) => key.startsWith('KUBE_VOLUME_S3_'));
  return {
    objects,
    applied,
    schedulerEnv: Object.fromEntries([...SCHEDULER_KEYS, ...volumeS3].map((key) => [key, chartEnv[key] ?? ''])),
  };
}

/** Deletes the cluster-scoped objects {@link applyChartIdentity} created (namespaced ones go with their namespace). */
export async function removeChartIdentity(env: KubeTestEnv, identity: ChartIdentity | undefined): Promise<void> {
  for (const object of identity?.applied ?? []) {
    if (object.kind.startsWith('Cluster')) await env.client.delete(`${collection(object)}/${object.metadata.name}`);
  }
}

/** The HTTP status a request with a chart identity's token gets (200 when it succeeds). */
export async function statusOf(request: Promise<unknown>): Promise<number> {
  return request.then(
    () => 200,
    (error: unknown) => (error instanceof KubeApiError ? error.status : Promise.reject(error)),
  );
}

/** A token of a ServiceAccount from the TokenRequest API, as kubelet would project it into the pod. */
export async function requestToken(env: KubeTestEnv, namespace: string, serviceAccount: string): Promise<string> {
  const request = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } };
  const { status } = await env.client.create<{ status: { token: string } }>(
    `/api/v1/namespaces/${namespace}/serviceaccounts/${serviceAccount}/token`,
    request,
  );
  return status.token;
}

/** Writes a kubeconfig whose only credential is `token` (no admin token, no client certificate). */
export function writeTokenKubeconfig(env: KubeTestEnv, file: string, user: string, token: string): void {
  const caData = Buffer.from(env.connection.caPem, 'utf8').toString('base64');
  const kubeconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name: 'runplane-test', cluster: { server: env.connection.server, 'certificate-authority-data': caData } },
    ],
    users: [{ name: user, user: { token } }],
    contexts: [{ name: user, context: { cluster: 'runplane-test', user } }],
    'current-context': user,
  };
  writeFileSync(file, stringify(kubeconfig), { mode: 0o600 });
}

/** A ServiceAccount signed in: its TokenRequest token, a kubeconfig whose only credential it is, a client using it. */
export interface ChartLogin {
  token: string;
  kubeconfigPath: string;
  client: KubeTestClient;
}

/**
 * What one chart spec holds on the test cluster: its namespaces, its kwok node pool, the chart's identity, a scratch
 * folder of kubeconfigs and admin clients. Each is made when the spec asks for it, and {@link close} removes what was
 * made, however far `beforeAll` got.
 */
export class ChartFixture {
  readonly env = kubeTestEnv();
  private readonly namespaces: TestNamespace[] = [];
  private pool: string | undefined;
  private target: ChartTarget | undefined;
  private identity: ChartIdentity | undefined;
  private folder: string | undefined;
  private adminClients: KubeClients | undefined;

  /** A fresh namespace named after `label`. */
  async namespace(label: string): Promise<TestNamespace> {
    const namespace = await createTestNamespace(label, this.env);
    this.namespaces.push(namespace);
    return namespace;
  }

  /** Registers kwok nodes of `pools` under the pool label `pool` and waits until they are Ready. */
  async nodePools(pool: string, pools: readonly NodePoolSpec[]): Promise<void> {
    this.pool = pool;
    await registerNodePools(this.env, pools, { poolLabel: pool });
  }

  /** Applies the chart's ServiceAccounts and RBAC for the target (see {@link applyChartIdentity}). */
  async applyIdentity(target: ChartTarget): Promise<ChartIdentity> {
    this.target = target;
    this.identity = await applyChartIdentity(this.env, target);
    return this.identity;
  }

  /** Signs in as the chart's scheduler ServiceAccount in the release namespace of {@link applyIdentity}. */
  async schedulerLogin(): Promise<ChartLogin> {
    if (this.target === undefined) throw new Error('schedulerLogin needs the chart identity applied first');
    const account = serviceAccountName('scheduler');
    const token = await requestToken(this.env, this.target.release, account);
    this.folder ??= mkdtempSync(path.join(tmpdir(), 'chart-fixture-'));
    const kubeconfigPath = path.join(this.folder, 'scheduler.kubeconfig');
    writeTokenKubeconfig(this.env, kubeconfigPath, account, token);
    return { token, kubeconfigPath, client: new KubeTestClient({ ...this.env.connection, token }) };
  }

  /** Clients with the test cluster's admin credentials. */
  admin(): KubeClients {
    this.adminClients ??= createKubeClients({ kubeconfigPath: this.env.kubeconfigPath, qps: 100, burst: 200 });
    return this.adminClients;
  }

  /** Removes what the fixture made: admin clients, namespaces (the last made first), node pool, identity, folder. */
  async close(): Promise<void> {
    this.adminClients?.close();
    for (const namespace of [...this.namespaces].reverse()) await namespace.delete();
    if (this.pool !== undefined) await removeNodePool(this.env, this.pool);
    await removeChartIdentity(this.env, this.identity);
    if (this.folder !== undefined) rmSync(this.folder, { recursive: true, force: true });
  }
}
