import { createHash } from 'node:crypto';
import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { LoginAttempt, LoginThrottle } from '../../application/ports/login-throttle.ts';
import { unavailableError } from '../persistence/database-unreachable.ts';
import type { LoginBudgets } from './login-budgets.ts';

/** One rate-limiter-flexible limiter per budget. */
export type LoginLimiters = {
  readonly emailAndAddress: RateLimiterAbstract;
  readonly address: RateLimiterAbstract;
};

type LimiterOptions = { keyPrefix: string; points: number; duration: number };

/**
 * The library options of each budget. The prefixes keep the two budgets apart even in one shared table.
 * rate-limiter-flexible counts in whole seconds (the PostgreSQL store writes `now + duration × 1000` to a
 * bigint column, which a fractional product would break), so a window is rounded up, never shortened.
 */
export function limiterOptions(budgets: LoginBudgets): Record<keyof LoginLimiters, LimiterOptions> {
  const options = (keyPrefix: string, budget: LoginBudgets['address']) => ({
    keyPrefix,
    points: budget.failures,
    duration: Math.ceil(budget.window / 1000),
  });
  return {
    emailAndAddress: options('login-email-address', budgets.emailAndAddress),
    address: options('login-address', budgets.address),
  };
}

/**
 * Login budgets kept by rate-limiter-flexible (memory or PostgreSQL). The address budget is consulted
 * first: an attempt it refuses never reaches the password check, so it is no guess at the e-mail and
 * leaves the e-mail+address count (and the store) untouched. That also bounds the e-mail+address keys
 * one address can create per window to its own budget.
 */
export class RateLimiterLoginThrottle implements LoginThrottle {
  /**
   * @param limiters resolves once the store is usable; called for every attempt, so it may retry a
   *   store that failed to initialise.
   * @param release frees what the store holds (a connection pool).
   */
  constructor(
    private readonly limiters: () => Promise<LoginLimiters>,
    private readonly release: () => Promise<void> = async () => {},
  ) {}

  admit(attempt: LoginAttempt): Promise<number> {
    return this.reachingStore(() => this.count(attempt));
  }

  succeeded(attempt: LoginAttempt): Promise<void> {
    return this.reachingStore(async () => {
      const { emailAndAddress, address } = await this.limiters();
      await Promise.all([
        emailAndAddress.delete(emailAndAddressKey(attempt)),
        address.reward(addressKey(attempt)),
      ]);
    });
  }

  close(): Promise<void> {
    return this.release();
  }

  private async count(attempt: LoginAttempt): Promise<number> {
    const { emailAndAddress, address } = await this.limiters();
    const byAddress = await consume(address, addressKey(attempt));
    if (byAddress.refused) {
      const pair = await emailAndAddress.get(emailAndAddressKey(attempt));
      return waitFor(byAddress.result, pair);
    }
    const byPair = await consume(emailAndAddress, emailAndAddressKey(attempt));
    // Retry-After names the time this e-mail may try again from here: both budgets must have room by then.
    return byPair.refused ? waitFor(byPair.result, byAddress.result) : 0;
  }

  /** A store that cannot be reached answers 503, as the rest of the database does (docs/api.md §2). */
  private async reachingStore<T>(work: () => Promise<T>): Promise<T> {
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

/**
 * Keys are digests: the e-mail may be any text the client sent (and the address, behind a trusted proxy,
 * any `X-Forwarded-For` text), while the PostgreSQL store keys are varchar(255); no e-mail is stored in
 * clear; and hashing an encoded pair cannot confuse ("a|b", "c") with ("a", "b|c").
 */
function emailAndAddressKey(attempt: LoginAttempt): string {
  return digest(JSON.stringify([attempt.email, attempt.clientAddress]));
}

function addressKey(attempt: LoginAttempt): string {
  return digest(JSON.stringify(attempt.clientAddress));
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}
