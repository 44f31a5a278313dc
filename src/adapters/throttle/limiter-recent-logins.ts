import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RecentLogins } from './recent-logins.ts';

/**
 * Recent logins as rows of a rate-limiter-flexible store (the PostgreSQL one: its expiry is a bigint of
 * epoch ms, fine for a month), under a key prefix of their own. The store's sweeper deletes them an hour
 * after they expire; its `get` never returns an expired row.
 */
export class LimiterRecentLogins implements RecentLogins {
  /** @param windowSeconds the remembered time, in the whole seconds the library counts in. */
  constructor(
    private readonly store: RateLimiterAbstract,
    private readonly windowSeconds: number,
  ) {}

  async has(key: string): Promise<boolean> {
    return (await this.store.get(key)) !== null;
  }

  async remember(key: string): Promise<void> {
    await this.store.set(key, 1, this.windowSeconds);
  }
}
