/**
 * The caches' hot path on the hand-written Map-based LRU (src/adapters/lru-map.ts before decision 0023) and
 * on LruMap as it is now, over lru-cache: a hit-heavy get (tokens, users, roles read on every request), a
 * miss, and a set churning past the size bound (static tokens sprayed at random).
 * Run: node --import tsx bench/lru-cache-vs-lru-map.ts
 */
import { CACHE_DEFAULTS, LruMap } from '../src/adapters/lru-map.ts';

type Cache = { get(key: string): unknown; set(key: string, value: unknown): void };

/** The previous implementation, kept here only to measure against. */
class MapLru implements Cache {
  private readonly entries = new Map<string, { value: unknown; storedAt: number }>();
  constructor(
    private readonly maxEntries: number,
    private readonly maxAgeMs: number,
  ) {}
  get(key: string) {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (performance.now() - entry.storedAt >= this.maxAgeMs) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }
  set(key: string, value: unknown) {
    this.entries.delete(key);
    this.entries.set(key, { value, storedAt: performance.now() });
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }
}

const MAX = 10_000;
const keys = Array.from({ length: 20_000 }, (_, i) => `key-${i}-${'x'.repeat(24)}`);

function run(name: string, cache: Cache): void {
  for (let i = 0; i < MAX; i++) cache.set(keys[i]!, { i });
  const measure = (label: string, operations: number, work: (i: number) => void) => {
    for (let i = 0; i < operations / 10; i++) work(i); // warm-up
    const started = performance.now();
    for (let i = 0; i < operations; i++) work(i);
    const seconds = (performance.now() - started) / 1000;
    console.log(`${name.padEnd(10)} ${label.padEnd(26)} ${(operations / seconds / 1e6).toFixed(2)} M ops/s`);
  };
  measure('get, hit (1,000 hot keys)', 5_000_000, (i) => cache.get(keys[i % 1000]!));
  measure('get, miss', 5_000_000, (i) => cache.get(keys[MAX + (i % MAX)]!));
  measure('set, evicting', 2_000_000, (i) => cache.set(keys[i % keys.length]!, { i }));
}

for (let round = 0; round < 2; round++) {
  run('Map', new MapLru(MAX, 60_000));
  run('lru-cache', new LruMap<string, unknown>({ ...CACHE_DEFAULTS, maxEntries: MAX }));
}
