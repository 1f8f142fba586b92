/**
 * A bounded cache of lookups: concurrent misses for the same key share one
 * load, results (including "not found") stay until `clear()`, and a failed load
 * is forgotten so the next call retries. When full it starts over, which bounds
 * memory against floods of unknown keys.
 */
export function createPromiseCache<K, V>(maxEntries: number, load: (key: K) => Promise<V>) {
  const entries = new Map<K, Promise<V>>();
  return {
    get(key: K): Promise<V> {
      const hit = entries.get(key);
      if (hit !== undefined) return hit;
      if (entries.size >= maxEntries) entries.clear();
      const pending = load(key);
      entries.set(key, pending);
      pending.catch(() => {
        if (entries.get(key) === pending) entries.delete(key);
      });
      return pending;
    },
    clear(): void {
      entries.clear();
    },
  };
}
