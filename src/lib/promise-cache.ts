import type { MaybePromise } from './maybe-promise.js';

interface CacheEntry<V> {
  readonly pending: Promise<V>;
  loaded: boolean;
  value: V | undefined;
}

/**
 * A bounded cache of lookups: concurrent misses for the same key share one
 * load, results (including "not found") stay until `clear()`, and a failed load
 * is forgotten so the next call retries. When full it starts over, which bounds
 * memory against floods of unknown keys. A loaded entry is returned as the
 * value itself (no promise), so a hit costs the caller no microtask.
 */
export function createPromiseCache<K, V>(maxEntries: number, load: (key: K) => Promise<V>) {
  const entries = new Map<K, CacheEntry<V>>();
  return {
    get(key: K): MaybePromise<V> {
      const hit = entries.get(key);
      if (hit !== undefined) return hit.loaded ? (hit.value as V) : hit.pending;
      if (entries.size >= maxEntries) entries.clear();
      const pending = load(key);
      const entry: CacheEntry<V> = { pending, loaded: false, value: undefined };
      entries.set(key, entry);
      pending.then(
        (value) => {
          entry.value = value;
          entry.loaded = true;
        },
        () => {
          if (entries.get(key) === entry) entries.delete(key);
        },
      );
      return pending;
    },
    clear(): void {
      entries.clear();
    },
  };
}
