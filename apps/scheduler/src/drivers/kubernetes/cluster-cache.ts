import {
  type CoreV1Event,
  type KubeClients,
  type KubernetesListObject,
  type KubernetesObject,
  LABELS,
  type ListQuery,
  MANAGED_BY,
  MANAGED_SELECTOR,
  type ResourceWatch,
  type V1Node,
  type V1PersistentVolumeClaim,
  type V1Pod,
  type V1Secret,
  type V1Service,
  watchResource,
} from '@runplane/kube';
import { gpuRequestOf, isOwnWorkload, machineOf } from './cluster-view';

/** What changed in the cluster, for the scheduler loop. */
export type ClusterChange = { kind: 'workload'; podId: string } | { kind: 'machines' };

/** Settings of the cache. */
export interface ClusterCacheOptions {
  clients: KubeClients;
  namespace: string;
  nodeSelector: Readonly<Record<string, string>>;
  onChange: (change: ClusterChange) => void;
  log: (message: string, error?: unknown) => void;
  /** Re-deliver every cached object this often, so a missed event cannot leave a workload behind. */
  resyncMs?: number;
}

/** One informer: the collection's path and list call, what to do on a change, and which objects it keeps. */
interface WatchSpec<T extends KubernetesObject> {
  path: string;
  list: (query: ListQuery) => Promise<KubernetesListObject<T>>;
  changed: (object: T) => void;
  /** What to do when an object goes; `changed` when omitted. */
  deleted?: (object: T) => void;
  labelSelector?: string | undefined;
  fieldSelector?: string;
}

/**
 * The driver's view of the cluster, kept by supervised informers (list + watch, restart with backoff, relist on 410):
 * the operator's nodes, this namespace's Runplane objects (pods, services, claims, secrets), and every pod bound to a
 * node (for GPUs held by workloads Runplane does not manage).
 */
export class ClusterCache {
  readonly nodes: ResourceWatch<V1Node>;
  readonly pods: ResourceWatch<V1Pod>;
  readonly services: ResourceWatch<V1Service>;
  readonly claims: ResourceWatch<V1PersistentVolumeClaim>;
  readonly secrets: ResourceWatch<V1Secret>;
  /** Pods bound to a node in other namespaces. */
  readonly boundPods: ResourceWatch<V1Pod>;
  /** Pods bound to a node in this namespace that Runplane does not manage. */
  readonly boundStrangers: ResourceWatch<V1Pod>;
  /** kubelet's `Pulled` Events of this namespace's pods (an image pulled, or already present on the machine). */
  readonly pulls: ResourceWatch<CoreV1Event>;
  /** When each pod (by uid) first had its image: the earliest `Pulled` Event seen of it. */
  private readonly pulledAtByUid = new Map<string, Date>();

  constructor(private readonly options: ClusterCacheOptions) {
    const { clients, namespace } = options;
    const core = clients.core;
    this.nodes = this.watchNodes();
    this.pods = this.watch<V1Pod>({
      path: this.inNamespace('pods'),
      list: (query) => core.listNamespacedPod({ namespace, ...query }),
      changed: this.workloadChanged,
      labelSelector: `${MANAGED_SELECTOR},${LABELS.podId}`,
    });
    this.services = this.watch<V1Service>({
      path: this.inNamespace('services'),
      list: (query) => core.listNamespacedService({ namespace, ...query }),
      changed: this.workloadChanged,
      labelSelector: MANAGED_SELECTOR,
    });
    this.claims = this.watch<V1PersistentVolumeClaim>({
      path: this.inNamespace('persistentvolumeclaims'),
      list: (query) => core.listNamespacedPersistentVolumeClaim({ namespace, ...query }),
      changed: this.workloadChanged,
      labelSelector: MANAGED_SELECTOR,
    });
    this.secrets = this.watch<V1Secret>({
      path: this.inNamespace('secrets'),
      list: (query) => core.listNamespacedSecret({ namespace, ...query }),
      changed: () => undefined,
      labelSelector: MANAGED_SELECTOR,
    });
    [this.boundPods, this.boundStrangers] = this.watchBoundPods();
    this.pulls = this.watchPulls();
  }

  /** The time of a pod's first `Pulled` Event, or null when none was seen (yet, or it expired before the driver ran). */
  pulledAt(pod: V1Pod): Date | null {
    return this.pulledAtByUid.get(pod.metadata?.uid ?? '') ?? null;
  }

  /** Every pod bound to a node that is not one of this namespace's Runplane workloads (for foreign GPU use). */
  foreignBoundPods(): V1Pod[] {
    return [...this.boundPods.list(), ...this.boundStrangers.list()];
  }

  /** Resolves once every informer has delivered its first list. */
  async synced(): Promise<void> {
    await Promise.all(this.all().map((watch) => watch.synced));
  }

  async stop(): Promise<void> {
    await Promise.all(this.all().map((watch) => watch.stop()));
  }

  private all(): ResourceWatch<KubernetesObject>[] {
    return [
      this.nodes,
      this.pods,
      this.services,
      this.claims,
      this.secrets,
      this.boundPods,
      this.boundStrangers,
      this.pulls,
    ];
  }

  private readonly workloadChanged = (object: KubernetesObject): void => {
    const podId = object.metadata?.labels?.[LABELS.podId];
    if (podId) this.options.onChange({ kind: 'workload', podId });
  };

  private inNamespace(kind: string): string {
    return `/api/v1/namespaces/${this.options.namespace}/${kind}`;
  }

  /** The operator's nodes; only a change of what the inventory mirrors reaches the loop. */
  private watchNodes(): ResourceWatch<V1Node> {
    const nodeSelector = Object.entries(this.options.nodeSelector)
      .map(([key, value]) => `${key}=${value}`)
      .join(',');
    // Node heartbeats update every node every few seconds: each node's machine view is compared with the last one.
    const nodeViews = new Map<string, string>();
    const nodeChanged = (node: V1Node): void => {
      const name = node.metadata?.name ?? '';
      const view = this.nodes?.get(name) ? JSON.stringify(machineOf(node, 0)) : '';
      if (nodeViews.get(name) === view) return;
      if (view === '') nodeViews.delete(name);
      else nodeViews.set(name, view);
      this.options.onChange({ kind: 'machines' });
    };
    return this.watch<V1Node>({
      path: '/api/v1/nodes',
      list: (query) => this.options.clients.core.listNode(query),
      changed: nodeChanged,
      labelSelector: nodeSelector || undefined,
    });
  }

  /**
   * Pods bound to a node that Runplane does not manage here, whose GPUs change the machines' totals. This namespace is
   * left out of the cluster-wide watch: its own workloads (every one of them changes several times while it starts)
   * would reach the driver twice. Pods here that Runplane does not manage are watched on their own.
   */
  private watchBoundPods(): [ResourceWatch<V1Pod>, ResourceWatch<V1Pod>] {
    const { clients, namespace } = this.options;
    const foreignBound = (pod: V1Pod): void => {
      if (!isOwnWorkload(pod, namespace) && gpuRequestOf(pod) > 0) this.options.onChange({ kind: 'machines' });
    };
    const elsewhere = this.watch<V1Pod>({
      path: '/api/v1/pods',
      list: (query) => clients.core.listPodForAllNamespaces(query),
      changed: foreignBound,
      fieldSelector: `spec.nodeName!=,metadata.namespace!=${namespace}`,
    });
    const strangers = this.watch<V1Pod>({
      path: this.inNamespace('pods'),
      list: (query) => clients.core.listNamespacedPod({ namespace, ...query }),
      changed: foreignBound,
      labelSelector: `${LABELS.managedBy}!=${MANAGED_BY}`,
      fieldSelector: 'spec.nodeName!=',
    });
    return [elsewhere, strangers];
  }

  /**
   * kubelet's `Pulled` Events of this namespace's pods, selected by the apiserver (`reason=Pulled`): each keeps its pod's
   * earliest one (a restart's "already present" Event comes later) and tells the loop the workload changed; the map
   * holds one entry per live Event's pod.
   */
  private watchPulls(): ResourceWatch<CoreV1Event> {
    const { clients, namespace } = this.options;
    const pulled = (event: CoreV1Event): void => {
      const { uid, name } = event.involvedObject;
      const stamp = event.eventTime ?? event.firstTimestamp ?? event.metadata.creationTimestamp;
      if (!uid || !stamp) return;
      const at = new Date(stamp);
      const known = this.pulledAtByUid.get(uid);
      if (known && known.getTime() <= at.getTime()) return;
      this.pulledAtByUid.set(uid, at);
      const pod = name ? this.pods.get(name, namespace) : undefined;
      if (pod?.metadata?.uid === uid) this.workloadChanged(pod);
    };
    return this.watch<CoreV1Event>({
      path: this.inNamespace('events'),
      list: (query) => clients.core.listNamespacedEvent({ namespace, ...query }),
      changed: pulled,
      // An Event expires (an hour by default), long after the cold start was recorded: its pod's entry goes with it.
      deleted: (event) => this.pulledAtByUid.delete(event.involvedObject.uid ?? ''),
      fieldSelector: 'involvedObject.kind=Pod,reason=Pulled',
    });
  }

  private watch<T extends KubernetesObject>(spec: WatchSpec<T>): ResourceWatch<T> {
    const { path, labelSelector, fieldSelector } = spec;
    return watchResource<T>({
      watch: this.options.clients.watch,
      path,
      list: spec.list,
      ...(labelSelector ? { labelSelector } : {}),
      ...(fieldSelector ? { fieldSelector } : {}),
      onAdd: spec.changed,
      onUpdate: spec.changed,
      onDelete: spec.deleted ?? spec.changed,
      onError: (error, retryInMs) => this.options.log(`watch of ${path} failed; restarting in ${retryInMs} ms`, error),
      onHandlerError: (error) => this.options.log(`handling a change of ${path} failed`, error),
      ...(this.options.resyncMs ? { resyncMs: this.options.resyncMs } : {}),
    });
  }
}
