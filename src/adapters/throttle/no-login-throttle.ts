import type { LoginThrottle } from '../../application/ports/login-throttle.ts';

/** `auth.throttle.enabled: false`: every attempt is admitted and nothing is counted. */
export class NoLoginThrottle implements LoginThrottle {
  async admit(): Promise<number> {
    return 0;
  }

  async succeeded(): Promise<void> {}
}
