/**
 * Lookups under way, by key: a lookup asked for while the same key's is under way shares it. When a busy cached
 * entry expires, the requests that meet it at once (fifty callers of one API key, say) then cost one query, not one
 * each, and none of them waits behind the others' queries.
 */
export class SharedLookups<V> {
  private readonly pending = new Map<string, Promise<V>>();

  /** The result of the lookup of `key` under way, else of `lookUp()`, started now. */
  run(key: string, lookUp: () => Promise<V>): Promise<V> {
    const pending = this.pending.get(key);
    if (pending) return pending;
    const started = lookUp().finally(() => this.pending.delete(key));
    this.pending.set(key, started);
    return started;
  }
}
