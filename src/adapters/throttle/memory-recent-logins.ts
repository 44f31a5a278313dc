import type { RecentLogins } from './recent-logins.ts';

/**
 * Enough for every user of a large installation from a few addresses each, at about 100 bytes an entry
 * (10 MB); past it the oldest remembered login is forgotten, which only puts that pair back under the
 * address budget.
 */
const DEFAULT_CAPACITY = 100_000;

/**
 * Recent logins in this process's memory, bounded. No timer per key, unlike RateLimiterMemory, whose
 * timers cannot wait a month (Node.js fires a timer of more than 2^31 − 1 ms, ~24.8 days, at once): an
 * entry expires when read, and the Map keeps the order of the last success, so the first entry is always
 * the next to expire or to be evicted.
 */
export class MemoryRecentLogins implements RecentLogins {
  private readonly expiries = new Map<string, number>();

  constructor(
    private readonly windowMs: number,
    private readonly capacity = DEFAULT_CAPACITY,
    private readonly now: () => number = Date.now,
  ) {}

  async has(key: string): Promise<boolean> {
    const expiresAt = this.expiries.get(key);
    if (expiresAt === undefined) return false;
    if (expiresAt > this.now()) return true;
    this.expiries.delete(key);
    return false;
  }

  async remember(key: string): Promise<void> {
    this.expiries.delete(key);
    this.expiries.set(key, this.now() + this.windowMs);
    for (const oldest of this.expiries.keys()) {
      if (this.expiries.size <= this.capacity) break;
      this.expiries.delete(oldest);
    }
  }
}
