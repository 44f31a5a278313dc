import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { LoginAttempt, LoginThrottle } from '../../application/ports/login-throttle.ts';
import { unavailableError } from '../persistence/database-unreachable.ts';
import type { LoginBudgets } from './login-budgets.ts';
import type { LoginKeys } from './login-keys.ts';
import type { RecentLogins } from './recent-logins.ts';

/** One rate-limiter-flexible limiter per budget, and the recent logins kept beside them. */
export type LoginLimiters = {
  readonly emailAndAddress: RateLimiterAbstract;
  readonly address: RateLimiterAbstract;
  readonly recentLogins: RecentLogins;
};

type LimiterOptions = { keyPrefix: string; points: number; duration: number };

/**
 * The library options of each budget, and of the recent logins where a library store keeps them. The
 * prefixes keep them apart even in one shared table. rate-limiter-flexible counts in whole seconds (the
 * PostgreSQL store writes `now + duration × 1000` to a bigint column, which a fractional product would
 * break), so a window is rounded up, never shortened.
 */
export function limiterOptions(budgets: LoginBudgets): Record<keyof LoginLimiters, LimiterOptions> {
  const options = (keyPrefix: string, budget: LoginBudgets['address']) => ({
    keyPrefix,
    points: budget.failures,
    duration: seconds(budget.window),
  });
  return {
    emailAndAddress: options('login-email-address', budgets.emailAndAddress),
    address: options('login-address', budgets.address),
    recentLogins: options('login-recent', { failures: 1, window: budgets.rememberLogin }),
  };
}

const seconds = (milliseconds: number) => Math.ceil(milliseconds / 1000);

/**
 * Login budgets kept by rate-limiter-flexible (memory or PostgreSQL). The address budget is consulted
 * before the e-mail+address one: an attempt it refuses never reaches the password check, so it is no guess at the e-mail and
 * leaves the e-mail+address count (and the store) untouched. That also bounds the e-mail+address keys
 * one address can create per window to its own budget.
 *
 * An e-mail that logged in successfully from the address recently (a recent login) is counted there by
 * its own e-mail+address budget only: whoever floods the address with failures cannot lock out the users
 * who log in from it. Only a right password makes a login recent, so the exemption is no oracle for an
 * e-mail's existence: until then a known e-mail is counted exactly as an unknown one.
 */
export class RateLimiterLoginThrottle implements LoginThrottle {
  private closing: Promise<void> | undefined;

  /**
   * @param limiters resolves once the store is usable; called for every attempt, so it may retry a
   *   store that failed to initialise.
   * @param keys turns an attempt into the keys it is stored under.
   * @param release frees what the store holds (a connection pool).
   * @param renew told of a store failure; true when it made the store anew (its table had gone with a
   *   dropped and re-created database), so the attempt is worth one more try.
   */
  constructor(
    private readonly limiters: () => Promise<LoginLimiters>,
    private readonly keys: LoginKeys,
    private readonly release: () => Promise<void> = async () => {},
    private readonly renew: (error: unknown) => boolean = () => false,
  ) {}

  admit(attempt: LoginAttempt): Promise<number> {
    return this.reachingStore(() => this.count(attempt));
  }

  succeeded(attempt: LoginAttempt): Promise<void> {
    return this.reachingStore(async () => {
      const { emailAndAddress, address, recentLogins } = await this.limiters();
      const pairKey = this.keys.emailAndAddress(attempt);
      // A recent login's attempt took no point from the address, so it gets none back. Asked again here
      // rather than carried from admit: a login that became recent or expired in between moves the
      // address count by one point at most.
      const wasRecent = await recentLogins.has(pairKey);
      await Promise.all([
        emailAndAddress.delete(pairKey),
        wasRecent ? undefined : address.reward(this.keys.address(attempt)),
        recentLogins.remember(pairKey),
      ]);
    });
  }

  /** Ends what the store holds open; once, however often it is called (pg's pool refuses a second end). */
  close(): Promise<void> {
    this.closing ??= this.release();
    return this.closing;
  }

  private async count(attempt: LoginAttempt): Promise<number> {
    const { emailAndAddress, address, recentLogins } = await this.limiters();
    const pairKey = this.keys.emailAndAddress(attempt);
    if (await recentLogins.has(pairKey)) {
      const byPair = await consume(emailAndAddress, pairKey);
      return byPair.refused ? waitFor(byPair.result, null) : 0;
    }
    const byAddress = await consume(address, this.keys.address(attempt));
    if (byAddress.refused) {
      const pair = await emailAndAddress.get(pairKey);
      return waitFor(byAddress.result, pair);
    }
    const byPair = await consume(emailAndAddress, pairKey);
    // Retry-After names the time this e-mail may try again from here: both budgets must have room by then.
    return byPair.refused ? waitFor(byPair.result, byAddress.result) : 0;
  }

  /** A store that cannot be reached answers 503, as the rest of the database does (docs/api.md §2). */
  private async reachingStore<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!this.renew(error)) throw unavailableError(error) ?? error;
    }
    try {
      return await work();
    } catch (error) {
      throw unavailableError(error) ?? error;
    }
  }
}

type Outcome = { refused: boolean; result: RateLimiterRes };

/**
 * rate-limiter-flexible rejects with a RateLimiterRes when the budget is spent, and with an Error when
 * the store fails.
 */
async function consume(limiter: RateLimiterAbstract, key: string): Promise<Outcome> {
  try {
    return { refused: false, result: await limiter.consume(key) };
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return { refused: true, result: rejection };
    throw rejection;
  }
}

/**
 * The longest wait among the refusing budget and the other one when it has no point left. At least 1 ms:
 * a refusal read just as its window ends must still refuse (0 means "admitted").
 */
function waitFor(refusal: RateLimiterRes, other: RateLimiterRes | null): number {
  const otherWait = other && other.remainingPoints === 0 ? other.msBeforeNext : 0;
  return Math.max(1, refusal.msBeforeNext, otherWait);
}
