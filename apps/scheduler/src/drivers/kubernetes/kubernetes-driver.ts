import {
  applyObject,
  buildPriorityClasses,
  type KubeClients,
  kubeErrorMessage,
  kubeStatusOf,
  LABELS,
  type V1Pod,
  WORKLOAD_CONTAINER,
} from '@runplane/kube';
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
import { foreignGpuUse, isTerminal, machineOf, syntheticStatus, workloadStatusOf } from './cluster-view';
import { LeaseLeaderElection } from './lease-leader-election';
import { buildWorkloadObjects, type ObjectSettings, ownNames, type WorkloadObjects } from './workload-objects';
import { FIELD_MANAGER, WorkloadWriter } from './workload-writer';
import type { VolumeS3Endpoints } from './volume-s3-endpoints';
import { Slots } from '../../batching/slots';
import { TokenSecrets, tokenSecretsOf } from './token-secrets';

/** Workloads created concurrently (see {@link Slots}). */
const CREATES_IN_FLIGHT = 100;

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

/** A 4xx other than conflict: the apiserver refused the object itself (retrying the same spec cannot help). */
function isRefused(error: unknown): boolean {
  const status = kubeStatusOf(error);
  return status !== undefined && status >= 400 && status < 500 && status !== 409 && status !== 429;
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
  /** Workloads that were preempted and are gone from the cluster: their status until they are replaced or deleted. */
  private readonly tombstones = new Map<string, WorkloadStatus>();
  /**
   * Workloads being created, until the informer shows their pod. The reconciler does not wait for the apiserver (pods
   * are created concurrently), and must never see such a workload as missing: it would start it again, with a new
   * worker token that revokes the one the pod got.
   */
  private readonly pending = new Map<string, WorkloadStatus>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Workloads whose objects are being sent to the apiserver at once (two requests each for a worker). */
  private readonly creating = new Slots(CREATES_IN_FLIGHT);
  private readonly tokens: TokenSecrets;
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
    const pending = this.pending.get(spec.podId);
    if (pending?.generation === spec.generation) return pending;
    let objects: WorkloadObjects;
    try {
      const extras = await this.options.extras(spec.podId);
      objects = buildWorkloadObjects(spec, extras, this.settings, this.tokens.gather(spec.accountId));
    } catch (error) {
      return syntheticStatus(spec, 'FAILED', `Invalid workload: ${(error as Error).message}`);
    }
    this.tombstones.delete(spec.podId);
    this.create(spec, objects);
    return syntheticStatus(spec, 'CREATING', null);
  }

  async stop(podId: string): Promise<void> {
    const cache = await this.ready();
    this.tombstones.delete(podId);
    const pod = cache.pods.get(ownNames.pod(podId), this.namespace);
    if (pod && !pod.metadata?.deletionTimestamp)
      await this.writer.deletePod(podId, this.lost(pod) ? 0 : this.settings.terminationGracePeriodSeconds);
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
    this.tombstones.delete(podId);
    this.pending.delete(podId);
    this.tokens.deleted(podId);
    const pod = cache.pods.get(ownNames.pod(podId), this.namespace);
    if (pod && (!pod.metadata?.deletionTimestamp || this.lost(pod))) {
      await this.writer.deletePod(podId, this.lost(pod) ? 0 : this.settings.terminationGracePeriodSeconds);
    }
    await this.writer.deleteServices(cache, podId);
    await this.writer.deleteOwned(cache, podId);
    await this.writer.deleteUnusedPullSecrets(cache, pod, podId);
    for (const name of this.tokens.unused(pod ? tokenSecretsOf(pod) : [], this.podOf(cache), cache.secrets))
      await this.writer.deleteSecret(name);
    if (!pod) this.tokens.gone(podId);
  }

  async status(podId: string): Promise<WorkloadStatus | null> {
    const cache = await this.ready();
    const pod = cache.pods.get(ownNames.pod(podId), this.namespace);
    if (pod) return this.statusOf(pod);
    const pending = this.pending.get(podId);
    if (pending) return pending;
    const tombstone = this.tombstones.get(podId);
    if (tombstone) return tombstone;
    const leftover = [cache.services, cache.claims, cache.secrets].some((watch) =>
      watch.list(this.namespace).some((o) => o.metadata?.labels?.[LABELS.podId] === podId),
    );
    // Objects without a pod (a stopped Pod's volume, or a crash between creates): generation 0, so a run recreates.
    return leftover ? syntheticStatus({ podId, generation: 0, machineName: '' }, 'EXITED', null) : null;
  }

  async list(): Promise<WorkloadStatus[]> {
    const cache = await this.ready();
    // Token Secrets left by workloads that are gone (a restart between a pod's delete and its Secret's).
    this.tokens.sweep(this.podOf(cache), cache.secrets, (name) => this.writer.deleteSecret(name), this.options.log);
    const ids = new Set<string>([...this.tombstones.keys(), ...this.pending.keys()]);
    for (const watch of [cache.pods, cache.services, cache.claims, cache.secrets]) {
      for (const object of watch.list(this.namespace)) {
        const podId = object.metadata?.labels?.[LABELS.podId];
        if (podId) ids.add(podId);
      }
    }
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
    await Promise.allSettled([...this.inFlight]);
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
      const pod = this.cache?.pods.get(ownNames.pod(change.podId), this.namespace);
      if (!pod) this.tokens.gone(change.podId);
      if (pod && this.pending.get(change.podId)?.generation === this.statusOf(pod).generation)
        this.pending.delete(change.podId);
      const status = pod ? this.statusOf(pod) : undefined;
      // A preempted pod is deleted by kube-scheduler; remember why, so the Pod shows it after the pod is gone.
      if (status?.preempted) this.tombstones.set(change.podId, status);
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

  private statusOf(pod: V1Pod): WorkloadStatus {
    const nodeName = pod.spec?.nodeName;
    const cache = this.cache;
    const podId = pod.metadata?.labels?.[LABELS.podId] ?? '';
    return workloadStatusOf(pod, {
      node: nodeName ? cache?.nodes.get(nodeName) : undefined,
      portService: cache?.services.get(ownNames.portService(podId), this.namespace),
      pulledAt: cache?.pulledAt(pod) ?? null,
    });
  }

  /** A bound pod whose node is gone or not ready. */
  private lost(pod: V1Pod): boolean {
    const status = this.statusOf(pod);
    return (
      status.phase === 'FAILED' &&
      !status.preempted &&
      Boolean(pod.spec?.nodeName) &&
      /^Machine /.test(status.reason ?? '')
    );
  }

  /** Keeps a current pod; deletes one of an older generation, finished, preempted or on a lost machine. */
  private async replaceIfStale(pod: V1Pod, spec: WorkloadSpec): Promise<WorkloadStatus> {
    const current = this.statusOf(pod);
    const lost = this.lost(pod);
    const deleting = Boolean(pod.metadata?.deletionTimestamp);
    const stale = current.generation !== spec.generation || isTerminal(pod) || current.preempted || lost;
    if (!deleting && !stale) return current;
    if (lost || !deleting)
      await this.writer.deletePod(spec.podId, lost ? 0 : this.settings.terminationGracePeriodSeconds);
    if (lost) return current;
    // The new pod takes the same name: it is created on a later pass, once the old one is gone.
    return syntheticStatus(spec, 'CREATING', 'Replacing the previous container');
  }

  /**
   * Creates every object of a workload in the background. A refused object fails the workload (kept as its status
   * until the next attempt); a transient failure is only logged: the next pass finds no pod and tries again.
   */
  private create(spec: WorkloadSpec, objects: WorkloadObjects): void {
    const pending = syntheticStatus(spec, 'CREATING', null);
    this.pending.set(spec.podId, pending);
    const settle = (): void => {
      if (this.pending.get(spec.podId) === pending) this.pending.delete(spec.podId);
    };
    const token = objects.tokenSecret;
    const work = (token ? this.tokens.ready(spec.podId, token.name, token.data) : Promise.resolve())
      .then(() => this.creating.run(() => this.writer.createAll(objects)))
      .then(
        () => {
          // Usually the informer has shown the pod by now; otherwise `changed` settles it when it does.
          if (this.cache?.pods.get(ownNames.pod(spec.podId), this.namespace)) settle();
        },
        (error: unknown) => {
          settle();
          if (isRefused(error))
            this.tombstones.set(
              spec.podId,
              syntheticStatus(spec, 'FAILED', `The cluster refused the workload: ${kubeErrorMessage(error)}`),
            );
          else this.options.log(`creating the workload of Pod ${spec.podId} failed; retrying on the next pass`, error);
        },
      )
      .finally(() => {
        this.inFlight.delete(work);
        this.emit({ kind: 'workload', podId: spec.podId });
      });
    this.inFlight.add(work);
  }

  private async waitForCache(done: () => boolean, timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
