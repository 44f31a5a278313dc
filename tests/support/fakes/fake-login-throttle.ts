import type { LoginBudgets } from '../../../src/adapters/throttle/login-budgets.ts';
import type { Clock } from '../../../src/application/ports/clock.ts';
import type { LoginAttempt, LoginThrottle } from '../../../src/application/ports/login-throttle.ts';

type Count = { attempts: number; endsAt: number };

/**
 * The budgets of `RateLimiterLoginThrottle` (fixed windows from a key's first attempt, the address asked
 * first, recent logins exempt from it) on the injected clock, which rate-limiter-flexible cannot read:
 * tests move time instead of sleeping. It keeps every key until that key is counted again after its window.
 */
export class FakeLoginThrottle implements LoginThrottle {
  private readonly pairs = new Map<string, Count>();
  private readonly addresses = new Map<string, Count>();
  /** E-mail+address → when its login stops being recent. */
  private readonly recentLogins = new Map<string, number>();

  constructor(
    private readonly budgets: LoginBudgets,
    private readonly clock: Clock,
  ) {}

  async admit(attempt: LoginAttempt): Promise<number> {
    const now = this.clock.now().getTime();
    const pairKey = pairKeyOf(attempt);
    if (this.isRecent(pairKey, now)) {
      const pair = this.count(this.pairs, pairKey, this.budgets.emailAndAddress.window, now);
      return waitAt(pair, this.budgets.emailAndAddress.failures, now);
    }
    const address = this.count(this.addresses, attempt.clientAddress, this.budgets.address.window, now);
    const addressWait = waitAt(address, this.budgets.address.failures, now);
    if (addressWait > 0) {
      const pair = this.live(this.pairs, pairKey, now);
      return Math.max(addressWait, waitAt(pair, this.budgets.emailAndAddress.failures - 1, now));
    }
    const pair = this.count(this.pairs, pairKey, this.budgets.emailAndAddress.window, now);
    const pairWait = waitAt(pair, this.budgets.emailAndAddress.failures, now);
    return pairWait > 0 ? Math.max(pairWait, waitAt(address, this.budgets.address.failures - 1, now)) : 0;
  }

  async succeeded(attempt: LoginAttempt): Promise<void> {
    const now = this.clock.now().getTime();
    const pairKey = pairKeyOf(attempt);
    this.pairs.delete(pairKey);
    const address = this.live(this.addresses, attempt.clientAddress, now);
    if (address && !this.isRecent(pairKey, now)) address.attempts--;
    this.recentLogins.set(pairKey, now + this.budgets.rememberLogin);
  }

  private isRecent(pairKey: string, now: number): boolean {
    return (this.recentLogins.get(pairKey) ?? 0) > now;
  }

  private count(counts: Map<string, Count>, key: string, window: number, now: number): Count {
    const count = this.live(counts, key, now) ?? { attempts: 0, endsAt: now + window };
    count.attempts++;
    counts.set(key, count);
    return count;
  }

  private live(counts: Map<string, Count>, key: string, now: number): Count | undefined {
    const count = counts.get(key);
    return count && count.endsAt > now ? count : undefined;
  }
}

function pairKeyOf(attempt: LoginAttempt): string {
  return JSON.stringify([attempt.email, attempt.clientAddress]);
}

/** Milliseconds until the window ends when more than `allowed` attempts were counted in it, else 0. */
function waitAt(count: Count | undefined, allowed: number, now: number): number {
  return count && count.attempts > allowed ? count.endsAt - now : 0;
}
