import { randomBytes } from 'node:crypto';
import { atTurnEnd } from '@runplane/event-loop';
import type { ResourceWatch, V1Pod, V1Secret } from '@runplane/kube';
import { buildTokenSecret, TOKEN_SECRET_LABEL, tokenSecretPodIds } from './workload-objects';

/** Tokens per Secret at most (a Secret holds at most 1 MiB). */
const MAX_TOKENS_PER_SECRET = 500;
/**
 * An unused token Secret younger than this is left alone by the sweep: another replica that led until just now may
 * still be creating the pods that read it.
 */
const SWEEP_GRACE_MS = 30_000;

interface OpenSecret {
  name: string;
  accountId: string;
  data: Record<string, string>;
  waiters: { resolve: () => void; reject: (error: unknown) => void }[];
}

/** The token Secrets a pod reads its variables from. */
export function tokenSecretsOf(pod: V1Pod): string[] {
  const names = (pod.spec?.containers ?? []).flatMap((c) => (c.env ?? []).map((v) => v.valueFrom?.secretKeyRef?.name));
  return [...new Set(names.filter((name): name is string => typeof name === 'string'))];
}

/**
 * Worker tokens of the workloads the driver creates in one turn of the event loop go into one Secret per account,
 * each pod reading only its own key: a scale-up of a thousand workers writes a couple of Secrets instead of a thousand
 * (each an apiserver write, a stored object and a watch event). `gather` names the Secret a new workload joins;
 * `ready` resolves once that Secret exists, so the pod is never created before its token. A Secret goes when no pod
 * reads it any more and no workload on its way will: with the last of its pods, or by the sweep after a restart.
 */
export class TokenSecrets {
  /** Secrets being gathered, by name. */
  private readonly open = new Map<string, OpenSecret>();
  /** The Secret each account's new workloads join. */
  private readonly current = new Map<string, string>();
  /** The token Secret of each workload this driver created, until the workload is deleted. */
  private readonly created = new Map<string, string>();
  /** Workloads being deleted (their pods may still show in the cache for a moment). */
  private readonly deleting = new Set<string>();
  /**
   * Secrets whose delete was sent, until the informer shows them gone: every workload of a Secret finds it unused once
   * the last of them goes, and the sweep finds it again while the cache still holds it.
   */
  private readonly removed = new Set<string>();

  constructor(
    private readonly namespace: string,
    private readonly create: (secret: V1Secret) => Promise<void>,
  ) {}

  /** The name of the Secret being gathered for this account now (a new one when none is, or it is full). */
  gather(accountId: string): string {
    const current = this.open.get(this.current.get(accountId) ?? '');
    if (current && current.waiters.length < MAX_TOKENS_PER_SECRET) return current.name;
    const name = `rp-tokens-${randomBytes(6).toString('hex')}`;
    this.open.set(name, { name, accountId, data: {}, waiters: [] });
    this.current.set(accountId, name);
    // Every workload the driver creates in this turn joins it before it is written (see TurnEdge 'after-io').
    atTurnEnd('after-io', () => this.flush(name));
    return name;
  }

  /** Adds a workload's keys to the Secret `gather` named; resolves when the Secret has been created. */
  ready(podId: string, name: string, data: Record<string, string>): Promise<void> {
    const secret = this.open.get(name);
    if (!secret) return Promise.reject(new Error(`Token Secret ${name} is no longer being gathered`));
    Object.assign(secret.data, data);
    this.created.set(podId, name);
    this.deleting.delete(podId);
    return new Promise<void>((resolve, reject) => secret.waiters.push({ resolve, reject }));
  }

  /** A workload is being deleted: it no longer holds its Secret. */
  deleted(podId: string): void {
    this.deleting.add(podId);
    this.created.delete(podId);
  }

  /** A workload's pod is gone from the cache. */
  gone(podId: string): void {
    this.deleting.delete(podId);
  }

  /**
   * Of these token Secrets, those nothing reads any more: neither a pod in the cache (`podOf`, by Pod id) nor a
   * workload on its way. Only the pods a Secret holds keys for can read it, so a check looks up those alone: deleting
   * n workers costs n Secrets' keys, not n scans of every pod.
   */
  unused(
    names: Iterable<string>,
    podOf: (podId: string) => V1Pod | undefined,
    secrets: ResourceWatch<V1Secret>,
  ): string[] {
    return [...new Set(names)].filter((name) => {
      if (this.open.has(name) || this.removed.has(name)) return false;
      const secret = secrets.get(name, this.namespace);
      if (secret?.metadata?.labels?.[TOKEN_SECRET_LABEL] !== 'true') return false;
      return !tokenSecretPodIds(secret).some(
        (podId) => this.created.get(podId) === name || this.readBy(podOf(podId), podId, name),
      );
    });
  }

  /** Token Secrets in the cache that nothing reads and that are old enough to be leftovers (see SWEEP_GRACE_MS). */
  leftovers(podOf: (podId: string) => V1Pod | undefined, secrets: ResourceWatch<V1Secret>, now = Date.now()): string[] {
    const old = secrets
      .list(this.namespace)
      .filter((secret) => secret.metadata?.labels?.[TOKEN_SECRET_LABEL] === 'true')
      .filter((secret) => now - new Date(secret.metadata?.creationTimestamp ?? now).getTime() >= SWEEP_GRACE_MS)
      .map((secret) => secret.metadata?.name as string);
    return this.unused(old, podOf, secrets);
  }

  /** Deletes the Secret `name` once: until the informer shows it gone, a second call sends nothing. */
  async remove(name: string, remove: (name: string) => Promise<void>): Promise<void> {
    if (this.removed.has(name)) return;
    this.removed.add(name);
    try {
      await remove(name);
    } catch (error) {
      this.removed.delete(name);
      throw error;
    }
  }

  /** Deletes the {@link leftovers} in the background; forgets the removed Secrets the informer shows gone. */
  sweep(
    podOf: (podId: string) => V1Pod | undefined,
    secrets: ResourceWatch<V1Secret>,
    remove: (name: string) => Promise<void>,
    log: (message: string, error?: unknown) => void,
  ): void {
    for (const name of this.removed) if (!secrets.get(name, this.namespace)) this.removed.delete(name);
    for (const name of this.leftovers(podOf, secrets)) {
      void this.remove(name, remove).catch((error: unknown) =>
        log(`removing the unused token Secret ${name} failed`, error),
      );
    }
  }

  /** True when `pod` (the cache's pod of `podId`) is live, not on its way out, and reads the Secret `name`. */
  private readBy(pod: V1Pod | undefined, podId: string, name: string): boolean {
    if (!pod || pod.metadata?.deletionTimestamp || this.deleting.has(podId)) return false;
    return tokenSecretsOf(pod).includes(name);
  }

  private flush(name: string): void {
    const secret = this.open.get(name);
    if (!secret) return;
    this.open.delete(name);
    if (this.current.get(secret.accountId) === name) this.current.delete(secret.accountId);
    if (secret.waiters.length === 0) return;
    this.create(buildTokenSecret(name, this.namespace, secret.accountId, secret.data)).then(
      () => secret.waiters.forEach((waiter) => waiter.resolve()),
      (error: unknown) => secret.waiters.forEach((waiter) => waiter.reject(error)),
    );
  }
}
