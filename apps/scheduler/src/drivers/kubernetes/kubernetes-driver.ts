import { applyObject, buildPriorityClasses, type KubeClients, type V1Pod, WORKLOAD_CONTAINER } from '@runplane/kube';
import type { WorkloadExtras } from '@runplane/workloads';
import type { LeaderElection } from '../../leader/leader-election';
import type {
  ChangeListener,
  ComputeDriver,
  DriverMachine,
  LogFollower,
  LogFollowRequest,
  WorkloadSpec,
  WorkloadStatus,
} from '../compute-driver';
import { KubeLogFollower } from './kube-logs';
import { type ClusterChange, ClusterCache } from './cluster-cache';
import { foreignGpuUse, isTerminal, machineOf, syntheticStatus } from './cluster-view';
import { LeaseLeaderElection } from './lease-leader-election';
import { buildWorkloadObjects, type ObjectSettings, ownNames, type WorkloadObjects } from './workload-objects';
import { WorkloadCreator } from './workload-creator';
import { WorkloadStatuses } from './workload-statuses';
import { FIELD_MANAGER, WorkloadWriter } from './workload-writer';
import type { VolumeS3Endpoints } from './volume-s3-endpoints';
import { TokenSecrets, tokenSecretsOf } from './token-secrets';

/** Settings of the kubernetes driver. */
export interface KubernetesDriverOptions {
  clients: KubeClients;
  objects: Omit<ObjectSettings, 'terminationGracePeriodSeconds'>;
  /** Grace a stopped container gets between SIGTERM and SIGKILL. */
  stopGraceMs: number;
  /** The Pod row's fields the objects need beyond the WorkloadSpec. */
  extras: (podId: string) => Promise<WorkloadExtras>;
  leaderLease: string;
  leaderIdentity: string;
  /** Apply the two PriorityClasses at start; off when an installer created them (no cluster-wide write then). */
  applyPriorityClasses?: boolean;
  log: (message: string, error?: unknown) => void;
  resyncMs?: number;
  /** The data centers' S3 endpoints of network volumes, when the operator enabled them. */
  volumeS3?: VolumeS3Endpoints;
}

/**
 * Runs Pods and workers as Kubernetes pods (see ARCHITECTURE "Compute drivers"). Its view of the cluster comes from
 * informers; every object carries `runplane.io/*` labels and a deterministic name, so after a restart the driver
 * rebuilds the same view, creates no duplicate (409 = already there) and lists leftovers for the reconciler to
 * delete. kube-scheduler binds each pod to the machine placement chose (hostname selector), preempting
 * interruptible pods for on-demand ones.
 */
export class KubernetesDriver implements ComputeDriver {
  readonly name = 'kubernetes' as const;
  private readonly listeners: ChangeListener[] = [];
  private readonly tokens: TokenSecrets;
  private readonly statuses: WorkloadStatuses;
  private readonly creator: WorkloadCreator;
  private starting: Promise<ClusterCache> | null = null;
  private cache: ClusterCache | null = null;
  private readonly settings: ObjectSettings;
  private readonly namespace: string;
  private readonly writer: WorkloadWriter;

  constructor(private readonly options: KubernetesDriverOptions) {
    this.settings = { ...options.objects, terminationGracePeriodSeconds: Math.ceil(options.stopGraceMs / 1000) };
    this.namespace = options.objects.namespace;
    this.writer = new WorkloadWriter(options.clients, this.namespace);
    this.tokens = new TokenSecrets(this.namespace, (secret) => this.writer.createSecret(secret));
    this.statuses = new WorkloadStatuses(this.namespace, () => this.cache);
    this.creator = new WorkloadCreator({
      writer: this.writer,
      tokens: this.tokens,
      statuses: this.statuses,
      changed: (podId) => this.emit({ kind: 'workload', podId }),
      log: options.log,
    });
  }

  async machines(): Promise<DriverMachine[]> {
    const cache = await this.ready();
    const foreign = foreignGpuUse(cache.foreignBoundPods(), this.namespace);
    const machines = cache.nodes.list().map((node) => machineOf(node, foreign.get(node.metadata?.name ?? '') ?? 0));
    await this.options.volumeS3?.ensure(machines.map((machine) => machine.dataCenterId));
    return machines;
  }

  async ensureRunning(spec: WorkloadSpec): Promise<WorkloadStatus> {
    const cache = await this.ready();
    const existing = cache.pods.get(ownNames.pod(spec.podId), this.namespace);
    if (existing) return this.replaceIfStale(existing, spec);
    const node = cache.nodes.get(spec.machineName);
    if (!node || !machineOf(node, 0).ready)
      return syntheticStatus(spec, 'FAILED', `Machine ${spec.machineName} is not available`);
    const pending = this.statuses.creatingOf(spec.podId);
    if (pending?.generation === spec.generation) return pending;
    let objects: WorkloadObjects;
    try {
      const extras = await this.options.extras(spec.podId);
      objects = buildWorkloadObjects(spec, extras, this.settings, this.tokens.gather(spec.accountId));
    } catch (error) {
      return syntheticStatus(spec, 'FAILED', `Invalid workload: ${(error as Error).message}`);
    }
    this.creator.create(spec, objects);
    return syntheticStatus(spec, 'CREATING', null);
  }

  async stop(podId: string): Promise<void> {
    const cache = await this.ready();
    this.statuses.stopped(podId);
    const pod = cache.pods.get(ownNames.pod(podId), this.namespace);
    if (pod && !pod.metadata?.deletionTimestamp)
      await this.writer.deletePod(podId, this.statuses.lost(pod) ? 0 : this.settings.terminationGracePeriodSeconds);
    await this.writer.deleteServices(cache, podId);
    // The reconciler reads the status right after stop: wait until the informer has seen the deletion.
    await this.waitForCache(() => {
      const seen = cache.pods.get(ownNames.pod(podId), this.namespace);
      return !seen || Boolean(seen.metadata?.deletionTimestamp);
    });
    this.emit({ kind: 'workload', podId });
  }

  async delete(podId: string): Promise<void> {
    const cache = await this.ready();
    this.statuses.deleted(podId);
    this.tokens.deleted(podId);
    const pod = cache.pods.get(ownNames.pod(podId), this.namespace);
    const lost = pod !== undefined && this.statuses.lost(pod);
    // Sent once per pod: until the informer shows it gone, a later pass has nothing to add (but a lost one's force).
    if (pod && !lost && this.statuses.deletionSent(podId, pod)) return;
    if (pod && (!pod.metadata?.deletionTimestamp || lost)) {
      await this.writer.deletePod(podId, lost ? 0 : this.settings.terminationGracePeriodSeconds);
    }
    await this.writer.deleteServices(cache, podId);
    await this.writer.deleteOwned(cache, podId);
    await this.writer.deleteUnusedPullSecrets(cache, pod, podId);
    for (const name of this.tokens.unused(pod ? tokenSecretsOf(pod) : [], this.podOf(cache), cache.secrets))
      await this.tokens.remove(name, (secret) => this.writer.deleteSecret(secret));
    if (pod) this.statuses.sentDeletion(podId, pod);
    else this.tokens.gone(podId);
  }

  async status(podId: string): Promise<WorkloadStatus | null> {
    const cache = await this.ready();
    return this.statuses.status(cache, podId);
  }

  async list(): Promise<WorkloadStatus[]> {
    const cache = await this.ready();
    // Token Secrets left by workloads that are gone (a restart between a pod's delete and its Secret's).
    this.tokens.sweep(this.podOf(cache), cache.secrets, (name) => this.writer.deleteSecret(name), this.options.log);
    const ids = this.statuses.podIds(cache);
    const statuses = await Promise.all([...ids].map((podId) => this.status(podId)));
    return statuses.filter((status): status is WorkloadStatus => status !== null);
  }

  onChange(listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  /** Straight from the apiserver (no informer), so any replica, leader or not, serves a stream. */
  followLogs(request: LogFollowRequest): LogFollower {
    const { clients } = this.options;
    const pod = ownNames.pod(request.podId);
    return new KubeLogFollower({ clients, namespace: this.namespace, pod, container: WORKLOAD_CONTAINER, request });
  }

  /** The Lease election of the scheduler replicas; a new leader runs a pass at once. */
  leaderElection(ttlMs: number): LeaderElection {
    return new LeaseLeaderElection({
      coordination: this.options.clients.coordination,
      namespace: this.namespace,
      lease: this.options.leaderLease,
      identity: this.options.leaderIdentity,
      ttlMs,
      onStartedLeading: () => this.emit({ kind: 'machines' }),
      log: this.options.log,
    });
  }

  /** Stops the informers; the cluster's workloads keep running for the next leader. */
  async close(): Promise<void> {
    await this.creator.settled();
    this.listeners.length = 0;
    const starting = this.starting;
    this.starting = null;
    if (starting)
      await starting.then(
        (cache) => cache.stop(),
        () => undefined,
      );
    this.options.clients.close();
  }

  private ready(): Promise<ClusterCache> {
    this.starting ??= this.start().catch((error: unknown) => {
      this.starting = null;
      throw error;
    });
    return this.starting;
  }

  private async start(): Promise<ClusterCache> {
    const apply = this.options.applyPriorityClasses ?? true;
    for (const priorityClass of apply ? buildPriorityClasses() : [])
      await applyObject(this.options.clients.objects, priorityClass, FIELD_MANAGER);
    const cache = new ClusterCache({
      clients: this.options.clients,
      namespace: this.namespace,
      nodeSelector: this.settings.nodeSelector,
      onChange: (change) => this.changed(change),
      log: this.options.log,
      ...(this.options.resyncMs ? { resyncMs: this.options.resyncMs } : {}),
    });
    this.cache = cache;
    try {
      await cache.synced();
    } catch (error) {
      await cache.stop();
      throw error;
    }
    return cache;
  }

  private changed(change: ClusterChange): void {
    if (change.kind === 'workload') {
      const pod = this.statuses.podOf(change.podId);
      if (!pod) this.tokens.gone(change.podId);
      this.statuses.observed(change.podId, pod);
    }
    this.emit(change);
  }

  /** Looks up this namespace's pod of a Pod id in the cache. */
  private podOf(cache: ClusterCache): (podId: string) => V1Pod | undefined {
    return (podId) => cache.pods.get(ownNames.pod(podId), this.namespace);
  }

  private emit(change: ClusterChange): void {
    for (const listener of this.listeners) listener(change);
  }

  /** Keeps a current pod; deletes one of an older generation, finished, preempted or on a lost machine. */
  private async replaceIfStale(pod: V1Pod, spec: WorkloadSpec): Promise<WorkloadStatus> {
    const current = this.statuses.of(pod);
    const lost = this.statuses.lost(pod);
    const deleting = Boolean(pod.metadata?.deletionTimestamp);
    const stale = current.generation !== spec.generation || isTerminal(pod) || current.preempted || lost;
    if (!deleting && !stale) return current;
    if (lost || !deleting)
      await this.writer.deletePod(spec.podId, lost ? 0 : this.settings.terminationGracePeriodSeconds);
    if (lost) return current;
    // The new pod takes the same name: it is created on a later pass, once the old one is gone.
    return syntheticStatus(spec, 'CREATING', 'Replacing the previous container');
  }

  private async waitForCache(done: () => boolean, timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
