import { randomBytes } from 'node:crypto';
import { LABELS, type ResourceWatch, type V1Pod, type V1Secret } from '@runplane/kube';
import { buildTokenSecret, TOKEN_SECRET_LABEL } from './workload-objects';

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
  /** Leftover Secrets whose delete is under way. */
  private readonly sweeping = new Set<string>();

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
    setImmediate(() => this.flush(name));
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

  /** Of these token Secrets, those nothing reads any more (neither a pod in the cache nor a workload on its way). */
  unused(names: Iterable<string>, pods: readonly V1Pod[], secrets: ResourceWatch<V1Secret>): string[] {
    const used = new Set<string>([...this.open.keys(), ...this.created.values()]);
    for (const pod of pods) {
      const podId = pod.metadata?.labels?.[LABELS.podId];
      if (pod.metadata?.deletionTimestamp || (podId !== undefined && this.deleting.has(podId))) continue;
      for (const name of tokenSecretsOf(pod)) used.add(name);
    }
    return [...new Set(names)].filter((name) => !used.has(name) && secrets.get(name, this.namespace)?.metadata?.labels?.[TOKEN_SECRET_LABEL] === 'true');
  }

  /** Token Secrets in the cache that nothing reads and that are old enough to be leftovers (see SWEEP_GRACE_MS). */
  leftovers(pods: readonly V1Pod[], secrets: ResourceWatch<V1Secret>, now = Date.now()): string[] {
    const old = secrets
      .list(this.namespace)
      .filter((secret) => secret.metadata?.labels?.[TOKEN_SECRET_LABEL] === 'true')
      .filter((secret) => now - new Date(secret.metadata?.creationTimestamp ?? now).getTime() >= SWEEP_GRACE_MS)
      .map((secret) => secret.metadata?.name as string);
    return this.unused(old, pods, secrets);
  }

  /** Deletes the {@link leftovers} in the background, each once at a time. */
  sweep(pods: readonly V1Pod[], secrets: ResourceWatch<V1Secret>, remove: (name: string) => Promise<void>, log: (message: string, error?: unknown) => void): void {
    for (const name of this.leftovers(pods, secrets)) {
      if (this.sweeping.has(name)) continue;
      this.sweeping.add(name);
      void remove(name)
        .catch((error: unknown) => log(`removing the unused token Secret ${name} failed`, error))
        .finally(() => this.sweeping.delete(name));
    }
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
