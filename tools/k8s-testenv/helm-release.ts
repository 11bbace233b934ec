import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { createKubeClients, type KubeClients } from '@runplane/kube';
import { KUBE_BUILD_HINT, kubeBinaryPaths, type KubeTestClient, type KubeTestEnv } from '@runplane/testing';
import type { KubeObject } from './helm-chart';

/**
 * Installs and uninstalls the chart in helm/runplane on the test cluster with the helm built by `npm run k8s:build`,
 * and takes inventories of what a namespace and the cluster hold, for the install spec.
 */

const exec = promisify(execFile);

/** helm bound to the test cluster's kubeconfig, with its own cache, config and data folders. */
export interface HelmCli {
  run(args: string[]): Promise<{ code: number; output: string }>;
  close(): void;
}

export function helmCli(env: KubeTestEnv): HelmCli {
  const helm = kubeBinaryPaths().helm;
  if (!existsSync(helm)) throw new Error(`helm is not built (missing ${helm}). ${KUBE_BUILD_HINT}`);
  // helm keeps repositories and caches under the user's home: a test run must neither read nor leave any there.
  const home = mkdtempSync(path.join(tmpdir(), 'helm-home-'));
  const helmEnv = {
    ...process.env,
    HELM_CACHE_HOME: `${home}/cache`,
    HELM_CONFIG_HOME: `${home}/config`,
    HELM_DATA_HOME: `${home}/data`,
  };
  return {
    async run(args) {
      try {
        const { stdout, stderr } = await exec(helm, [...args, '--kubeconfig', env.kubeconfigPath], {
          env: helmEnv,
          maxBuffer: 32 * 1024 * 1024,
        });
        return { code: 0, output: `${stdout}${stderr}` };
      } catch (err) {
        const failure = err as { code?: number; stdout?: string; stderr?: string };
        if (typeof failure.code !== 'number') throw err;
        return { code: failure.code, output: `${failure.stdout ?? ''}${failure.stderr ?? ''}` };
      }
    },
    close: () => rmSync(home, { recursive: true, force: true }),
  };
}

/** Collections of every namespaced kind the chart or the controllers acting for it could create. */
const NAMESPACED = [
  '/api/v1/configmaps',
  '/api/v1/secrets',
  '/api/v1/pods',
  '/api/v1/services',
  '/api/v1/serviceaccounts',
  '/api/v1/persistentvolumeclaims',
  '/apis/apps/v1/deployments',
  '/apis/apps/v1/replicasets',
  '/apis/batch/v1/jobs',
  '/apis/policy/v1/poddisruptionbudgets',
  '/apis/rbac.authorization.k8s.io/v1/roles',
  '/apis/rbac.authorization.k8s.io/v1/rolebindings',
  '/apis/networking.k8s.io/v1/networkpolicies',
  '/apis/networking.k8s.io/v1/ingresses',
  '/apis/coordination.k8s.io/v1/leases',
];

/** Cluster-scoped kinds the chart can create. */
const CLUSTER_SCOPED = [
  '/apis/rbac.authorization.k8s.io/v1/clusterroles',
  '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
  '/apis/scheduling.k8s.io/v1/priorityclasses',
];

interface List {
  items: { metadata: { name: string } }[];
}

/** `/api/v1/pods` → `/api/v1/namespaces/<ns>/pods`. */
function inNamespace(collection: string, namespace: string): string {
  const slash = collection.lastIndexOf('/');
  return `${collection.slice(0, slash)}/namespaces/${namespace}${collection.slice(slash)}`;
}

async function names(client: KubeTestClient, collections: readonly string[], query = ''): Promise<string[]> {
  const lists = await Promise.all(
    collections.map(async (collection) => ({ collection, list: await client.get<List>(`${collection}${query}`) })),
  );
  return lists
    .flatMap(({ collection, list }) =>
      list.items.map((item) => `${collection.split('/').at(-1)}/${item.metadata.name}`),
    )
    .sort();
}

/** Every object of the namespace, as sorted `<resource>/<name>` entries. */
export function namespaceInventory(client: KubeTestClient, namespace: string): Promise<string[]> {
  return names(
    client,
    NAMESPACED.map((collection) => inNamespace(collection, namespace)),
  );
}

/** The cluster-scoped objects carrying the release's instance label. */
export function clusterObjectsOf(client: KubeTestClient, release: string): Promise<string[]> {
  return names(client, CLUSTER_SCOPED, `?labelSelector=${encodeURIComponent(`app.kubernetes.io/instance=${release}`)}`);
}

/** `<resource>/<name>` of an object, as the inventories list it (`PodDisruptionBudget` → `poddisruptionbudgets`). */
function entry(object: KubeObject): string {
  const kind = object.kind.toLowerCase();
  const plural = kind.endsWith('y') ? `${kind.slice(0, -1)}ies` : kind.endsWith('s') ? `${kind}es` : `${kind}s`;
  return `${plural}/${object.metadata.name}`;
}

/** What a release consists of, as inventory entries: the objects of its manifest, and the hooks helm leaves in place. */
export interface ReleaseObjects {
  /** Objects of `helm get manifest`, which uninstall deletes. */
  namespaced: string[];
  clusterScoped: string[];
  /** Hook objects whose delete policy does not delete them once they succeeded: helm never deletes them. */
  keptHooks: string[];
}

async function objectsOf(helm: HelmCli, args: string[]): Promise<KubeObject[]> {
  const { code, output } = await helm.run(args);
  if (code !== 0) throw new Error(`helm ${args.join(' ')} failed (exit ${code}): ${output}`);
  return parseAllDocuments(output)
    .map((doc) => doc.toJS() as KubeObject | null)
    .filter((object): object is KubeObject => object !== null);
}

export async function releaseObjects(helm: HelmCli, release: string, namespace: string): Promise<ReleaseObjects> {
  const manifest = await objectsOf(helm, ['get', 'manifest', release, '--namespace', namespace]);
  const hooks = await objectsOf(helm, ['get', 'hooks', release, '--namespace', namespace]);
  const kept = hooks.filter(
    (hook) => !(hook.metadata.annotations?.['helm.sh/hook-delete-policy'] ?? '').split(',').includes('hook-succeeded'),
  );
  return {
    namespaced: manifest
      .filter((object) => object.metadata.namespace !== undefined)
      .map(entry)
      .sort(),
    clusterScoped: manifest
      .filter((object) => object.metadata.namespace === undefined)
      .map(entry)
      .sort(),
    keptHooks: kept.map(entry).sort(),
  };
}

/** What a watch of a namespace's Jobs saw: each Job's name and when it was reported Complete, if it was. */
export interface JobWatch {
  seen: Map<string, { completedAt?: string }>;
  stop(): void;
}

interface Job {
  metadata: { name: string };
  status?: { completionTime?: string; conditions?: { type: string; status: string }[] };
}

/**
 * Watches the namespace's Jobs from now on: a hook Job deleted by helm once it succeeded is gone before the install
 * returns, so only a watch started before it can show it was created and completed.
 */
export async function watchJobs(env: KubeTestEnv, namespace: string): Promise<JobWatch> {
  const collection = `/apis/batch/v1/namespaces/${namespace}/jobs`;
  // Watching from the list's resourceVersion delivers every later change, however late the watch connects.
  const { metadata } = await env.client.get<{ metadata: { resourceVersion: string } }>(collection);
  const clients: KubeClients = createKubeClients({ kubeconfigPath: env.kubeconfigPath, qps: 50, burst: 100 });
  const seen = new Map<string, { completedAt?: string }>();
  const record = (phase: string, object: unknown): void => {
    const job = object as Job;
    if (phase === 'BOOKMARK' || job.metadata?.name === undefined) return;
    const complete = job.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') ?? false;
    if (!seen.has(job.metadata.name) || complete)
      seen.set(job.metadata.name, complete ? { completedAt: job.status?.completionTime } : {});
  };
  const controller = await clients.watch.watch(
    collection,
    { resourceVersion: metadata.resourceVersion },
    record,
    () => undefined,
  );
  return {
    seen,
    stop: () => {
      controller.abort();
      clients.close();
    },
  };
}
