import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { LoginBudgets } from './login-budgets.ts';
import type { LoginKeys } from './login-keys.ts';
import { MemoryRecentLogins } from './memory-recent-logins.ts';
import { limiterOptions, RateLimiterLoginThrottle } from './rate-limiter-login-throttle.ts';

/**
 * Budgets in this process's memory. RateLimiterMemory gives every key an unref'd timer that deletes it
 * when its window ends, so memory holds only the keys of the current windows and never keeps the process up.
 * Recent logins are bounded on their own (MemoryRecentLogins) and, like the budgets, end with the process.
 */
export function memoryLoginThrottle(budgets: LoginBudgets, keys: LoginKeys): RateLimiterLoginThrottle {
  const options = limiterOptions(budgets);
  const limiters = {
    emailAndAddress: new RateLimiterMemory(options.emailAndAddress),
    address: new RateLimiterMemory(options.address),
    recentLogins: new MemoryRecentLogins(budgets.rememberLogin),
  };
  return new RateLimiterLoginThrottle(async () => limiters, keys);
}
