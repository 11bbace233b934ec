import { KubeConfig, Watch, type KubernetesListObject, type V1ConfigMap } from '@kubernetes/client-node';
import { pollUntil } from '@runplane/testing';
import { watchResource } from './informer';

type WatchCallback = (phase: string, apiObj: unknown) => void;
type Done = (err: unknown) => void;

/** A Watch whose connections the test drives: it records each (re)connect and lets the test end it. */
class ScriptedWatch extends Watch {
  connections: { query: Record<string, unknown>; send: WatchCallback; done: Done }[] = [];

  constructor() {
    super(new KubeConfig());
  }

  override async watch(
    _path: string,
    query: Record<string, unknown>,
    callback: WatchCallback,
    done: Done,
  ): Promise<AbortController> {
    this.connections.push({ query: { ...query }, send: callback, done });
    return new AbortController();
  }

  get last(): { query: Record<string, unknown>; send: WatchCallback; done: Done } {
    const connection = this.connections.at(-1);
    if (!connection) throw new Error('no watch connection yet');
    return connection;
  }
}

const cm = (name: string, resourceVersion: string): V1ConfigMap => ({
  metadata: { name, namespace: 'ns', resourceVersion },
});
const listOf = (items: V1ConfigMap[], resourceVersion: string): KubernetesListObject<V1ConfigMap> => ({
  metadata: { resourceVersion },
  items,
});
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('watchResource over client-node ListWatch', () => {
  it('delivers the first list, resolves synced, passes selectors, then streams watch events from its resourceVersion', async () => {
    const watch = new ScriptedWatch();
    const seen: string[] = [];
    const queries: unknown[] = [];
    const informer = watchResource<V1ConfigMap>({
      watch,
      path: '/api/v1/namespaces/ns/configmaps',
      labelSelector: 'app=x',
      list: async (query) => (queries.push(query), listOf([cm('a', '1')], '10')),
      onAdd: (o) => seen.push(`add ${o.metadata?.name}`),
      onUpdate: (o) => seen.push(`update ${o.metadata?.name}`),
      onDelete: (o) => seen.push(`delete ${o.metadata?.name}`),
    });
    await informer.synced;
    expect(informer.hasSynced()).toBe(true);
    expect(queries).toEqual([{ labelSelector: 'app=x' }]);
    expect(watch.last.query).toEqual({ resourceVersion: '10', labelSelector: 'app=x' });
    watch.last.send('ADDED', cm('b', '11'));
    watch.last.send('MODIFIED', cm('a', '12'));
    watch.last.send('DELETED', cm('b', '13'));
    expect(seen).toEqual(['add a', 'add b', 'update a', 'delete b']);
    expect(informer.list().map((o) => o.metadata?.name)).toEqual(['a']);
    expect(informer.get('a', 'ns')?.metadata?.resourceVersion).toBe('12');
    await informer.stop();
  });

  it('relists by itself on 410 Gone (no restart, no error), replaying updates and deletes', async () => {
    const watch = new ScriptedWatch();
    const lists = [listOf([cm('a', '1'), cm('b', '2')], '10'), listOf([cm('a', '20')], '21')];
    const seen: string[] = [];
    const errors: unknown[] = [];
    const informer = watchResource<V1ConfigMap>({
      watch,
      path: '/api/v1/namespaces/ns/configmaps',
      list: async () => lists.shift() ?? listOf([], '99'),
      onUpdate: (o) => seen.push(`update ${o.metadata?.name}`),
      onDelete: (o) => seen.push(`delete ${o.metadata?.name}`),
      onError: (error) => errors.push(error),
    });
    await informer.synced;
    watch.last.done(Object.assign(new Error('Gone'), { statusCode: 410 }));
    await flush();
    // Vanished objects are reported first, then changed ones.
    expect(seen).toEqual(['delete b', 'update a']);
    expect(watch.connections).toHaveLength(2);
    expect(watch.last.query).toEqual({ resourceVersion: '21' });
    expect(errors).toEqual([]);
    expect(informer.restarts).toBe(0);
    await informer.stop();
  });

  it('restarts after any other error and resumes from the last resourceVersion', async () => {
    const watch = new ScriptedWatch();
    const errors: unknown[] = [];
    const informer = watchResource<V1ConfigMap>({
      watch,
      path: '/api/v1/namespaces/ns/configmaps',
      list: async () => listOf([cm('a', '1')], '10'),
      onError: (error) => errors.push(error),
      backoff: { initialMs: 1 },
    });
    await informer.synced;
    watch.last.send('MODIFIED', cm('a', '15'));
    watch.last.done(new Error('ECONNRESET'));
    await pollUntil(() => watch.connections.length === 2, { description: 'the watch to reconnect' });
    expect(errors).toEqual([new Error('ECONNRESET')]);
    expect(informer.restarts).toBe(1);
    expect(watch.connections).toHaveLength(2);
    expect(watch.last.query).toEqual({ resourceVersion: '15' });
    await informer.stop();
  });

  it('reports a throwing handler instead of losing the error, and keeps going', async () => {
    const watch = new ScriptedWatch();
    const failures: string[] = [];
    const informer = watchResource<V1ConfigMap>({
      watch,
      path: '/api/v1/namespaces/ns/configmaps',
      list: async () => listOf([], '1'),
      onAdd: (o) => {
        if (o.metadata?.name === 'bad') throw new Error('handler bug');
      },
      onHandlerError: (error, o) => failures.push(`${o.metadata?.name}: ${(error as Error).message}`),
    });
    await informer.synced;
    watch.last.send('ADDED', cm('bad', '2'));
    watch.last.send('ADDED', cm('good', '3'));
    expect(failures).toEqual(['bad: handler bug']);
    expect(informer.list().map((o) => o.metadata?.name)).toEqual(['bad', 'good']);
    await informer.stop();
  });

  it('rejects synced when stopped before the first list succeeded', async () => {
    const watch = new ScriptedWatch();
    const informer = watchResource<V1ConfigMap>({
      watch,
      path: '/api/v1/namespaces/ns/configmaps',
      list: () => Promise.reject(new Error('forbidden')),
      backoff: { initialMs: 60_000, maxMs: 60_000 },
    });
    await flush();
    await informer.stop();
    await expect(informer.synced).rejects.toThrow('stopped before its first list');
    expect(informer.hasSynced()).toBe(false);
  });
});

describe('watchResource resync', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('hands every cached object to onUpdate again each resync period, until stopped', async () => {
    const watch = new ScriptedWatch();
    const updates: string[] = [];
    const informer = watchResource<V1ConfigMap>({
      watch,
      path: '/api/v1/namespaces/ns/configmaps',
      list: async () => listOf([cm('a', '1'), cm('b', '2')], '10'),
      onUpdate: (o) => updates.push(o.metadata?.name ?? ''),
      resyncMs: 1_000,
    });
    await jest.advanceTimersByTimeAsync(1);
    expect(informer.hasSynced()).toBe(true);
    expect(updates).toEqual([]);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(updates).toEqual(['a', 'b']);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(updates).toEqual(['a', 'b', 'a', 'b']);
    await informer.stop();
    await jest.advanceTimersByTimeAsync(5_000);
    expect(updates).toHaveLength(4);
    expect(jest.getTimerCount()).toBe(0);
  });
});
