import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { LoginBudgets } from './login-budgets.ts';
import { limiterOptions, RateLimiterLoginThrottle } from './rate-limiter-login-throttle.ts';

/**
 * Budgets in this process's memory. RateLimiterMemory gives every key an unref'd timer that deletes it
 * when its window ends, so memory holds only the keys of the current windows and never keeps the process up.
 */
export function memoryLoginThrottle(budgets: LoginBudgets): RateLimiterLoginThrottle {
  const options = limiterOptions(budgets);
  const limiters = {
    emailAndAddress: new RateLimiterMemory(options.emailAndAddress),
    address: new RateLimiterMemory(options.address),
  };
  return new RateLimiterLoginThrottle(async () => limiters);
}
