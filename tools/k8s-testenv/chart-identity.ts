import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { KubeApiError, type KubeTestClient, type KubeTestEnv, NODE_POOL_LABEL } from '@runplane/testing';
import { stringify } from 'yaml';
import { type KubeObject, ofKind, RELEASE, render, serviceEnv, SERVICES } from './helm-chart';
import { type PlatformHarness, startPlatform } from '../../apps/scheduler/test/harness';

/**
 * The Helm chart's identities on the test cluster: its ServiceAccounts and RBAC applied to a release namespace (the
 * control plane's) and a workload namespace, and TokenRequest tokens for them, so a spec can act exactly as a
 * service of an installed release would.
 */

/** The ServiceAccount name of a chart service. */
export function serviceAccountName(service: (typeof SERVICES)[number]): string {
  return `${RELEASE}-runplane-${service}`;
}

/** The chart rendered for a release in `release` whose workloads go to `workloads` on the kwok pool `pool`. */
export interface ChartIdentity {
  objects: KubeObject[];
  /** What was applied: every ServiceAccount, the (Cluster)Roles, bindings and PriorityClasses. */
  applied: KubeObject[];
  /** The scheduler's env as the chart sets it (driver, namespace, node selector, Lease ...). */
  schedulerEnv: Record<string, string>;
}

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

/** Renders the chart for the two namespaces and applies its ServiceAccounts and RBAC (PriorityClasses may exist). */
export async function applyChartIdentity(
  env: KubeTestEnv,
  release: string,
  workloads: string,
  pool: string,
): Promise<ChartIdentity> {
  const selector = `workloads.nodeSelector.${NODE_POOL_LABEL.replace(/\./g, '\\.')}=${pool}`;
  const objects = await render({
    namespace: release,
    set: [`workloads.namespace=${workloads}`, selector, 'workloads.requestContainerDisk=false'],
  });
  const applied = [
    'ServiceAccount',
    'ClusterRole',
    'ClusterRoleBinding',
    'Role',
    'RoleBinding',
    'PriorityClass',
  ].flatMap((kind) => ofKind(objects, kind));
  for (const object of applied) await createIgnoringConflict(env.client, object);
  const chartEnv = serviceEnv(objects, 'scheduler');
  return {
    objects,
    applied,
    schedulerEnv: Object.fromEntries(SCHEDULER_KEYS.map((key) => [key, chartEnv[key] ?? ''])),
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

/** The scheduler's settings that stay fixed in a spec acting as the chart's scheduler. */
const SCHEDULER_TEST_ENV = { SCHEDULER_STOP_GRACE_MS: '1000' };

/**
 * Starts the platform with its scheduler configured as the chart configures it (`chartEnv`, the chart's scheduler
 * env picked by the spec) and authenticated only by the kubeconfig at `kubeconfigPath`.
 */
export function startAsChartScheduler(
  pool: string,
  chartEnv: Record<string, string>,
  kubeconfigPath: string,
): Promise<PlatformHarness> {
  return startPlatform(pool, {
    scheduler: {
      ...chartEnv,
      KUBECONFIG: kubeconfigPath,
      RUNPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      ...SCHEDULER_TEST_ENV,
    },
  });
}
