import type { ResourceWatch, V1Pod, V1Secret } from '@runplane/kube';
import { TokenSecrets, tokenSecretsOf } from './token-secrets';

const NS = 'runplane';

function pod(podId: string, secretName: string, deleting = false): V1Pod {
  return {
    metadata: {
      name: `rp-${podId}`,
      namespace: NS,
      labels: { 'runplane.io/pod-id': podId },
      ...(deleting ? { deletionTimestamp: new Date() } : {}),
    },
    spec: {
      containers: [
        {
          name: 'workload',
          env: [
            {
              name: 'RUNPOD_AI_API_KEY',
              valueFrom: { secretKeyRef: { name: secretName, key: `${podId}.runpod-ai-api-key` } },
            },
          ],
        },
      ],
    },
  };
}

/** The informer cache of Secrets, over the Secrets "created" so far. */
function secretCache(created: V1Secret[]): ResourceWatch<V1Secret> {
  return {
    list: () => created,
    get: (name: string) => created.find((secret) => secret.metadata?.name === name),
  } as unknown as ResourceWatch<V1Secret>;
}

/** The informer cache of pods, looked up by Pod id; `lookups` records every id asked for. */
function podCache(pods: V1Pod[], lookups: string[] = []): (podId: string) => V1Pod | undefined {
  return (podId) => {
    lookups.push(podId);
    return pods.find((candidate) => candidate.metadata?.labels?.['runplane.io/pod-id'] === podId);
  };
}

describe('TokenSecrets', () => {
  let created: V1Secret[];
  let tokens: TokenSecrets;

  beforeEach(() => {
    created = [];
    tokens = new TokenSecrets(NS, (secret) => {
      created.push({ ...secret, metadata: { ...secret.metadata, creationTimestamp: new Date(0) } });
      return Promise.resolve();
    });
  });

  it('gathers the tokens of the workloads of one turn into one Secret per account, created before any of them goes on', async () => {
    const a = tokens.gather('acc1');
    expect(tokens.gather('acc1')).toBe(a);
    const b = tokens.gather('acc2');
    expect(b).not.toBe(a);
    const ready = [
      tokens.ready('p1', a, { 'p1.k': 'MQ==' }),
      tokens.ready('p2', a, { 'p2.k': 'Mg==' }),
      tokens.ready('p3', b, { 'p3.k': 'Mw==' }),
    ];
    await Promise.all(ready);
    expect(created.map((secret) => [secret.metadata?.name, Object.keys(secret.data ?? {})])).toEqual([
      [a, ['p1.k', 'p2.k']],
      [b, ['p3.k']],
    ]);
    expect(created[0]?.metadata?.labels).toMatchObject({
      'runplane.io/account-id': 'acc1',
      'runplane.io/token-secret': 'true',
    });
    expect(tokens.gather('acc1')).not.toBe(a);
  });

  it('a failed create fails every workload of that Secret', async () => {
    const failing = new TokenSecrets(NS, () => Promise.reject(new Error('apiserver down')));
    const name = failing.gather('acc1');
    const outcomes = await Promise.allSettled([
      failing.ready('p1', name, { 'p1.k': 'MQ==' }),
      failing.ready('p2', name, { 'p2.k': 'Mg==' }),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
  });

  it('a Secret is unused once every pod reading it is deleted, and swept after a restart when no pod reads it', async () => {
    const name = tokens.gather('acc1');
    await Promise.all([tokens.ready('p1', name, { 'p1.k': 'MQ==' }), tokens.ready('p2', name, { 'p2.k': 'Mg==' })]);
    const pods = [pod('p1', name), pod('p2', name)];
    expect([...new Set(pods.flatMap(tokenSecretsOf))]).toEqual([name]);
    tokens.deleted('p1');
    expect(tokens.unused([name], podCache(pods), secretCache(created))).toEqual([]);
    // Deleted together: p2 still shows in the cache, but it is on its way out.
    tokens.deleted('p2');
    expect(tokens.unused([name], podCache(pods), secretCache(created))).toEqual([name]);
    // A restarted driver knows nothing of its predecessor's workloads: the sweep goes by the cache alone.
    const restarted = new TokenSecrets(NS, () => Promise.resolve());
    expect(restarted.leftovers(podCache([pod('p1', name)]), secretCache(created))).toEqual([]);
    expect(restarted.leftovers(podCache([pod('p1', name, true)]), secretCache(created))).toEqual([name]);
    expect(restarted.leftovers(podCache([]), secretCache(created), 10_000)).toEqual([]);
  });

  it('deletes a Secret once, however many of its workloads find it unused before the informer shows it gone', async () => {
    const name = tokens.gather('acc1');
    await Promise.all([tokens.ready('p1', name, { 'p1.k': 'MQ==' }), tokens.ready('p2', name, { 'p2.k': 'Mg==' })]);
    const pods = [pod('p1', name, true), pod('p2', name, true)];
    tokens.deleted('p1');
    tokens.deleted('p2');
    const deletes: string[] = [];
    const remove = async (secret: string): Promise<void> => void deletes.push(secret);
    // Both workloads' deletes, then a sweep, while the cache still holds the Secret.
    for (const found of [tokens.unused([name], podCache(pods), secretCache(created)), [name]])
      for (const secret of found) await tokens.remove(secret, remove);
    tokens.sweep(podCache(pods), secretCache(created), remove, () => undefined);
    expect(tokens.unused([name], podCache(pods), secretCache(created))).toEqual([]);
    expect(deletes).toEqual([name]);
    // Gone from the cache, it is forgotten; a failed delete is tried again.
    tokens.sweep(podCache([]), secretCache([]), remove, () => undefined);
    await expect(tokens.remove(name, () => Promise.reject(new Error('apiserver down')))).rejects.toThrow('down');
    await tokens.remove(name, remove);
    expect(deletes).toEqual([name, name]);
  });

  it('looks up only the pods a Secret holds keys for, however many pods the namespace has', async () => {
    const name = tokens.gather('acc1');
    await Promise.all([
      tokens.ready('p1', name, { 'p1.runpod-ai-api-key': 'MQ==' }),
      tokens.ready('p2', name, { 'p2.runpod-ai-api-key': 'Mg==' }),
    ]);
    const others = Array.from({ length: 1000 }, (_, i) => pod(`other${i}`, 'rp-tokens-other'));
    const pods = [pod('p1', name), pod('p2', name), ...others];
    const lookups: string[] = [];
    tokens.deleted('p1');
    expect(tokens.unused([name], podCache(pods, lookups), secretCache(created))).toEqual([]);
    tokens.deleted('p2');
    expect(tokens.unused([name], podCache(pods.slice(1), lookups), secretCache(created))).toEqual([name]);
    expect(new Set(lookups)).toEqual(new Set(['p1', 'p2']));
  });
});
