import { LABELS, type V1Pod } from '@runplane/kube';
import type { WorkloadSpec, WorkloadStatus } from '../compute-driver';
import type { ClusterCache } from './cluster-cache';
import { syntheticStatus, workloadStatusOf } from './cluster-view';
import { ownNames } from './workload-objects';

/**
 * The driver's statuses of its workloads: a workload with a pod has the pod's, read against the cache (its node, port
 * Service and first image pull); one without a pod has the status kept here while it is being created, or its
 * tombstone once it was preempted and is gone.
 */
export class WorkloadStatuses {
  /** Workloads that were preempted and are gone from the cluster: their status until they are replaced or deleted. */
  private readonly tombstones = new Map<string, WorkloadStatus>();
  /**
   * Workloads being created, until the informer shows their pod. The reconciler does not wait for the apiserver (pods
   * are created concurrently), and must never see such a workload as missing: it would start it again, with a new
   * worker token that revokes the one the pod got.
   */
  private readonly pending = new Map<string, WorkloadStatus>();
  /**
   * The pod (its uid) of each deleted workload whose deletion the driver has sent, until the informer shows it gone:
   * the reconciler calls delete on every pass while the pod is still listed, and under load the informer may not show
   * its deletion for seconds.
   */
  private readonly deletions = new Map<string, string>();

  constructor(
    private readonly namespace: string,
    private readonly cache: () => ClusterCache | null,
  ) {}

  /** The cache's pod of a Pod id. */
  podOf(podId: string): V1Pod | undefined {
    return this.cache()?.pods.get(ownNames.pod(podId), this.namespace);
  }

  /** A pod's status, read against its node, port Service and image pull in the cache. */
  of(pod: V1Pod): WorkloadStatus {
    const nodeName = pod.spec?.nodeName;
    const cache = this.cache();
    const podId = pod.metadata?.labels?.[LABELS.podId] ?? '';
    return workloadStatusOf(pod, {
      node: nodeName ? cache?.nodes.get(nodeName) : undefined,
      portService: cache?.services.get(ownNames.portService(podId), this.namespace),
      pulledAt: cache?.pulledAt(pod) ?? null,
    });
  }

  /** A bound pod whose node is gone or not ready. */
  lost(pod: V1Pod): boolean {
    const status = this.of(pod);
    return (
      status.phase === 'FAILED' &&
      !status.preempted &&
      Boolean(pod.spec?.nodeName) &&
      /^Machine /.test(status.reason ?? '')
    );
  }

  /** A workload's status: its pod's, else the one kept while it is created, its tombstone, or that of its leftovers. */
  status(cache: ClusterCache, podId: string): WorkloadStatus | null {
    const pod = cache.pods.get(ownNames.pod(podId), this.namespace);
    if (pod) return this.of(pod);
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

  /** Every Pod id with a status: being created, tombstoned, or labelled on one of this namespace's cached objects. */
  podIds(cache: ClusterCache): Set<string> {
    const ids = new Set<string>([...this.tombstones.keys(), ...this.pending.keys()]);
    for (const watch of [cache.pods, cache.services, cache.claims, cache.secrets]) {
      for (const object of watch.list(this.namespace)) {
        const podId = object.metadata?.labels?.[LABELS.podId];
        if (podId) ids.add(podId);
      }
    }
    return ids;
  }

  /** The status of the workload being created, if it is. */
  creatingOf(podId: string): WorkloadStatus | undefined {
    return this.pending.get(podId);
  }

  /** A workload whose creation starts: its tombstone goes, and CREATING is its status until the informer shows it. */
  creating(spec: WorkloadSpec): WorkloadStatus {
    this.tombstones.delete(spec.podId);
    const pending = syntheticStatus(spec, 'CREATING', null);
    this.pending.set(spec.podId, pending);
    return pending;
  }

  /** The creation that {@link creating} returned `pending` for is over (a later creation's status stays). */
  settle(podId: string, pending: WorkloadStatus): void {
    if (this.pending.get(podId) === pending) this.pending.delete(podId);
  }

  /** The cluster refused the workload: FAILED with the reason, kept until the next attempt. */
  refused(spec: WorkloadSpec, reason: string): void {
    this.tombstones.set(spec.podId, syntheticStatus(spec, 'FAILED', reason));
  }

  /** A stopped workload: its tombstone goes. */
  stopped(podId: string): void {
    this.tombstones.delete(podId);
  }

  /** A deleted workload: nothing is kept of it. */
  deleted(podId: string): void {
    this.tombstones.delete(podId);
    this.pending.delete(podId);
  }

  /** Whether the deletion of this very pod (not an earlier or later one of the workload) has been sent. */
  deletionSent(podId: string, pod: V1Pod): boolean {
    const uid = pod.metadata?.uid;
    return uid !== undefined && this.deletions.get(podId) === uid;
  }

  /** The deletion of `pod` and of the objects it held has been sent. */
  sentDeletion(podId: string, pod: V1Pod): void {
    const uid = pod.metadata?.uid;
    if (uid !== undefined) this.deletions.set(podId, uid);
  }

  /**
   * The informer showed a change of a workload, whose pod is now `pod`: a pod of the generation being created ends the
   * creation, and a preempted one (kube-scheduler deletes it) leaves a tombstone, so the Pod shows why once it is gone.
   */
  observed(podId: string, pod: V1Pod | undefined): void {
    if (!pod) {
      this.deletions.delete(podId);
      return;
    }
    const status = this.of(pod);
    if (this.pending.get(podId)?.generation === status.generation) this.pending.delete(podId);
    if (status.preempted) this.tombstones.set(podId, status);
  }
}
