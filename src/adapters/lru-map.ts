export type LruMapOptions = {
  /** Beyond this many entries the least recently used one is dropped. */
  maxEntries: number;
  /** An entry older than this reads as absent; `Infinity` keeps entries until evicted or deleted. */
  maxAgeMs: number;
  /** Milliseconds on any steady scale; only differences are used. */
  now: () => number;
};

type Entry<V> = { value: V; storedAt: number };

/**
 * A Map bounded in size and in age, for the in-process caches. Bounded in size because some keys come
 * from callers (static tokens an attacker sprays at random must not grow memory); bounded in age so
 * that changes no invalidation reaches (another server instance, SQL by hand) are seen within
 * `maxAgeMs`. Recency is the Map's insertion order: a read re-inserts its key, so the first key is
 * always the least recently used one.
 */
export class LruMap<K, V> {
  private readonly entries = new Map<K, Entry<V>>();

  constructor(private readonly options: LruMapOptions) {}

  get size(): number {
    return this.entries.size;
  }

  /** `undefined` when absent or too old; a stored `null` (a cached "not found") is returned as such. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (this.options.now() - entry.storedAt >= this.options.maxAgeMs) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, storedAt: this.options.now() });
    if (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  /** A scan: meant for writes, which are rare next to reads. */
  deleteWhere(matches: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}

/**
 * The caches' defaults: 10,000 entries of a user or role are a few megabytes at most, and a minute is
 * how long a change made elsewhere may go unseen.
 */
export const CACHE_DEFAULTS: LruMapOptions = {
  maxEntries: 10_000,
  maxAgeMs: 60_000,
  now: () => performance.now(),
};
