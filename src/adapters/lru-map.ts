import { LRUCache } from 'lru-cache';

export type LruMapOptions = {
  /** Beyond this many entries the least recently used one is dropped. */
  maxEntries: number;
  /** An entry older than this reads as absent; `Infinity` keeps entries until evicted or deleted. */
  maxAgeMs: number;
  /** Milliseconds on any steady scale; only differences are used. */
  now: () => number;
};

/** lru-cache refuses null and undefined as values; the caches store null for "not found". */
type Box<V> = { value: V };

/**
 * A Map bounded in size and in age, for the in-process caches. Bounded in size because some keys come
 * from callers (static tokens an attacker sprays at random must not grow memory); bounded in age so
 * that changes no invalidation reaches (another server instance, SQL by hand) are seen within
 * `maxAgeMs`. lru-cache does the work (docs/decisions/0023: it evicts in constant time, where a Map's
 * oldest-first deletion slowed to tens of microseconds per set under churn); this keeps the caches' own
 * vocabulary and the `null` they store.
 */
export class LruMap<K extends {}, V> {
  private readonly cache: LRUCache<K, Box<V>>;

  constructor(options: LruMapOptions) {
    const ageBound = Number.isFinite(options.maxAgeMs);
    this.cache = new LRUCache<K, Box<V>>({
      max: options.maxEntries,
      // 0 is lru-cache's "no age bound"; its ttl must otherwise be a whole number of at least 1.
      ttl: ageBound ? Math.max(1, Math.ceil(options.maxAgeMs)) : 0,
      // lru-cache otherwise caches its clock for ttlResolution (1 ms), which a test's clock does not move.
      ttlResolution: 0,
      perf: { now: sinceCreation(options.now) },
    });
  }

  get size(): number {
    return this.cache.size;
  }

  /** `undefined` when absent or too old; a stored `null` (a cached "not found") is returned as such. */
  get(key: K): V | undefined {
    return this.cache.get(key)?.value;
  }

  set(key: K, value: V): void {
    this.cache.set(key, { value });
  }

  delete(key: K): void {
    this.cache.delete(key);
  }

  /**
   * A scan: meant for writes, which are rare next to reads. The keys are gathered before any is deleted:
   * lru-cache's iteration does not promise to survive deletions, and deleting the entry it stands on at
   * the least recent end sends it on from a stale link, over entries it had already yielded.
   */
  deleteWhere(matches: (value: V) => boolean): void {
    const doomed: K[] = [];
    for (const [key, box] of this.cache.entries()) if (matches(box.value)) doomed.push(key);
    for (const key of doomed) this.cache.delete(key);
  }

  clear(): void {
    this.cache.clear();
  }
}

/**
 * The clock as lru-cache needs it: it reads a start time of 0 as "never set", and so would never age an entry
 * set at a test clock's 0. Counting from 1 at creation keeps every difference and avoids 0.
 */
function sinceCreation(now: () => number): () => number {
  const origin = now() - 1;
  return () => now() - origin;
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
