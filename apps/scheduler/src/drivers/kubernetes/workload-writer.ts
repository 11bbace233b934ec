import {
  applyObject,
  isConflict,
  isNotFound,
  type KubeClients,
  LABELS,
  type V1Pod,
  type V1Secret,
} from '@runplane/kube';
import type { ClusterCache } from './cluster-cache';
import { ownNames, type WorkloadObjects } from './workload-objects';

/** Field manager of Runplane's server-side applies. */
export const FIELD_MANAGER = 'runplane-scheduler';

/**
 * The driver's writes to one namespace. Every call is idempotent: an object that already exists is kept (or, for
 * Secrets, updated by server-side apply), one that is already gone is not an error. Deletes skip objects the informer
 * cache does not hold, so a reconciler repeating them costs no API calls.
 */
export class WorkloadWriter {
  constructor(
    private readonly clients: KubeClients,
    private readonly namespace: string,
  ) {}

  /** Creates every object of a workload at once (kube-scheduler waits for a claim to bind; kubelet for a Secret). */
  async createAll(objects: WorkloadObjects): Promise<void> {
    const core = this.clients.core;
    const namespace = this.namespace;
    const { claim, pullSecret, portService, httpService } = objects;
    await Promise.all([
      claim && this.keep(() => core.createNamespacedPersistentVolumeClaim({ namespace, body: claim })),
      pullSecret && applyObject(this.clients.objects, pullSecret, FIELD_MANAGER),
      portService && this.keep(() => core.createNamespacedService({ namespace, body: portService })),
      httpService && this.keep(() => core.createNamespacedService({ namespace, body: httpService })),
      this.keep(() => this.clients.createJson(`/api/v1/namespaces/${namespace}/pods`, objects.pod)),
    ]);
  }

  /** Creates a Secret of this namespace (token Secrets have fresh names: an existing one is an error). */
  async createSecret(secret: V1Secret): Promise<void> {
    await this.clients.createJson(`/api/v1/namespaces/${this.namespace}/secrets`, secret);
  }

  async deleteSecret(name: string): Promise<void> {
    await this.ignoreMissing(() => this.clients.core.deleteNamespacedSecret({ name, namespace: this.namespace }));
  }

  async deletePod(podId: string, gracePeriodSeconds: number): Promise<void> {
    await this.ignoreMissing(() =>
      this.clients.core.deleteNamespacedPod({
        name: ownNames.pod(podId),
        namespace: this.namespace,
        gracePeriodSeconds,
      }),
    );
  }

  async deleteServices(cache: ClusterCache, podId: string): Promise<void> {
    const remove = (name: string) => this.clients.core.deleteNamespacedService({ name, namespace: this.namespace });
    await this.deleteIfCached(cache.services, ownNames.portService(podId), remove);
    await this.deleteIfCached(cache.services, ownNames.httpService(podId), remove);
  }

  /** The token Secret and the Pod's own volume claim (a network volume's claim belongs to the volume). */
  async deleteOwned(cache: ClusterCache, podId: string): Promise<void> {
    const core = this.clients.core;
    await this.deleteIfCached(cache.secrets, ownNames.envSecret(podId), (name) =>
      core.deleteNamespacedSecret({ name, namespace: this.namespace }),
    );
    await this.deleteIfCached(cache.claims, ownNames.podVolume(podId), (name) =>
      core.deleteNamespacedPersistentVolumeClaim({ name, namespace: this.namespace }),
    );
  }

  /** Pull secrets are shared by the Pods of one registry auth: the last user's delete removes it. */
  async deleteUnusedPullSecrets(cache: ClusterCache, pod: V1Pod | undefined, podId: string): Promise<void> {
    for (const { name } of pod?.spec?.imagePullSecrets ?? []) {
      if (!name) continue;
      const used = cache.pods
        .list(this.namespace)
        .some(
          (other) =>
            other.metadata?.labels?.[LABELS.podId] !== podId &&
            other.spec?.imagePullSecrets?.some((ref) => ref.name === name),
        );
      if (!used)
        await this.deleteIfCached(cache.secrets, name, (secret) =>
          this.clients.core.deleteNamespacedSecret({ name: secret, namespace: this.namespace }),
        );
    }
  }

  private async deleteIfCached(
    watch: { get(name: string, namespace?: string): unknown },
    name: string,
    remove: (name: string) => Promise<unknown>,
  ): Promise<void> {
    if (watch.get(name, this.namespace) === undefined) return;
    await this.ignoreMissing(() => remove(name));
  }

  private async keep(create: () => Promise<unknown>): Promise<void> {
    try {
      await create();
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
  }

  private async ignoreMissing(call: () => Promise<unknown>): Promise<void> {
    try {
      await call();
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}
