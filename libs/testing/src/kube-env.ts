import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { connectionFromKubeconfig, type KubeConnection, KubeTestClient } from './kube-env-client';
import { assertPoolLabel, buildPoolNode, NODE_POOL_LABEL, type NodePoolSpec } from './kube-env-pools';
import { KUBE_BUILD_HINT } from './kube-env-versions';
import { pollUntil } from './poll';

/** The variable the jest `kube` project's global setup passes the kubeconfig path in. */
export const TEST_KUBECONFIG_ENV = 'RUNPLANE_TEST_KUBECONFIG';

/** The shared control plane of a jest run, as a test file sees it. */
export interface KubeTestEnv {
  kubeconfigPath: string;
  /** The kubeconfig YAML (token user, CA-pinned server). */
  kubeconfig: string;
  connection: KubeConnection;
  /** A small REST client for test setup and assertions. */
  client: KubeTestClient;
}

/**
 * The control plane started for this jest run. Throws a clear error outside the jest `kube` project
 * (files named *.kube.spec.ts) or when it did not start: Kubernetes tests never skip silently.
 */
export function kubeTestEnv(env: NodeJS.ProcessEnv = process.env): KubeTestEnv {
  const kubeconfigPath = env[TEST_KUBECONFIG_ENV];
  if (kubeconfigPath === undefined || kubeconfigPath === '' || !existsSync(kubeconfigPath)) {
    throw new Error(
      `No Kubernetes test environment: ${TEST_KUBECONFIG_ENV} is ${kubeconfigPath ? `"${kubeconfigPath}" (missing file)` : 'unset'}. ` +
        'Kubernetes tests must be named *.kube.spec.ts so the jest "kube" project starts a control plane for them. ' +
        KUBE_BUILD_HINT,
    );
  }
  const kubeconfig = readFileSync(kubeconfigPath, 'utf8');
  const connection = connectionFromKubeconfig(kubeconfig);
  return { kubeconfigPath, kubeconfig, connection, client: new KubeTestClient(connection) };
}

function clientOf(target: KubeTestEnv | string): KubeTestClient {
  if (typeof target !== 'string') return target.client;
  return new KubeTestClient(connectionFromKubeconfig(readFileSync(target, 'utf8')));
}

/** A namespace of one test file. */
export interface TestNamespace {
  name: string;
  /** Deletes the namespace's pods (at once) and volume claims, then the namespace itself. Call in afterAll. */
  delete(): Promise<void>;
}

/**
 * Creates a uniquely named namespace (`label` makes it recognisable). The test environment's
 * controller-manager runs no namespace controller, so `delete()` does its part itself: it force-deletes
 * the pods (freeing their node resources for other test files), deletes the volume claims and
 * finalizes the namespace.
 */
export async function createTestNamespace(
  label: string,
  target: KubeTestEnv | string = kubeTestEnv(),
): Promise<TestNamespace> {
  const client = clientOf(target);
  const slug =
    label
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'test';
  const name = `t-${slug}-${randomBytes(4).toString('hex')}`;
  await client.create('/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels: { 'runplane.io/test': 'true' } },
  });
  const remove = async (): Promise<void> => {
    await client.delete(`/api/v1/namespaces/${name}/pods?gracePeriodSeconds=0`);
    await client.delete(`/api/v1/namespaces/${name}/persistentvolumeclaims`);
    await client.delete(`/api/v1/namespaces/${name}`);
    const ns = await client
      .get<{ spec?: { finalizers?: string[] } }>(`/api/v1/namespaces/${name}`)
      .catch(() => undefined);
    if (ns !== undefined)
      await client.replace(`/api/v1/namespaces/${name}/finalize`, { ...ns, spec: { finalizers: [] } });
  };
  return { name, delete: remove };
}

/** Options for {@link registerNodePools}. */
export interface RegisterNodePoolsOptions {
  /** This test file's pool label (value of runplane.io/node-pool), e.g. its file name. */
  poolLabel: string;
  /** Wait until kwok reports every node Ready (default true). */
  waitReady?: boolean;
  /** How long to wait for Ready (default 30 s). */
  timeoutMs?: number;
}

interface NodeList {
  items: { metadata: { name: string }; status?: { conditions?: { type: string; status: string }[] } }[];
}

/**
 * Creates the kwok Nodes of `pools` under `opts.poolLabel` and (by default) waits until they are
 * Ready. Returns the node names. Nodes of an earlier run with the same pool label are replaced.
 */
export async function registerNodePools(
  target: KubeTestEnv | string,
  pools: readonly NodePoolSpec[],
  opts: RegisterNodePoolsOptions,
): Promise<string[]> {
  assertPoolLabel(opts.poolLabel);
  const client = clientOf(target);
  await removeNodePool(client, opts.poolLabel);
  const nodes = pools.flatMap((pool) =>
    Array.from({ length: pool.count }, (_, index) => buildPoolNode(pool, index, opts.poolLabel)),
  );
  await Promise.all(nodes.map((node) => client.create('/api/v1/nodes', node)));
  const names = nodes.map((node) => (node['metadata'] as { name: string }).name);
  if (opts.waitReady ?? true) {
    await pollUntil(
      async () => {
        const list = await client.get<NodeList>(
          `/api/v1/nodes?labelSelector=${encodeURIComponent(`${NODE_POOL_LABEL}=${opts.poolLabel}`)}`,
        );
        const ready = list.items.filter((node) =>
          node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        );
        return ready.length === names.length;
      },
      {
        timeoutMs: opts.timeoutMs ?? 30_000,
        intervalMs: 100,
        description: `${names.length} kwok nodes of pool ${opts.poolLabel} to become Ready`,
      },
    );
  }
  return names;
}

/** Deletes every node of a pool label (pods bound to them stay until their namespace is deleted). */
export async function removeNodePool(target: KubeTestEnv | string | KubeTestClient, poolLabel: string): Promise<void> {
  assertPoolLabel(poolLabel);
  const client = target instanceof KubeTestClient ? target : clientOf(target);
  await client.delete(`/api/v1/nodes?labelSelector=${encodeURIComponent(`${NODE_POOL_LABEL}=${poolLabel}`)}`);
  await pollUntil(
    async () =>
      (
        await client.get<NodeList>(
          `/api/v1/nodes?labelSelector=${encodeURIComponent(`${NODE_POOL_LABEL}=${poolLabel}`)}`,
        )
      ).items.length === 0,
    { timeoutMs: 30_000, intervalMs: 100, description: `nodes of pool ${poolLabel} to be deleted` },
  );
}
