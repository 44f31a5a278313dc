import type { LoginThrottle } from '../../application/ports/login-throttle.ts';
import type { AppConfig } from '../config/config-schema.ts';
import { LoginKeys } from './login-keys.ts';
import { memoryLoginThrottle } from './memory-login-throttle.ts';
import { NoLoginThrottle } from './no-login-throttle.ts';
import { postgresLoginThrottle } from './postgres-login-throttle.ts';

export type LoginThrottleStore = NonNullable<AppConfig['auth']['throttle']['store']>;

/**
 * The store the configuration asks for, or else the one that holds across instances where it can: every
 * instance on a PostgreSQL server shares its budgets there (N instances counting alone would give an
 * attacker N budgets), while the embedded database is one process's own, so memory loses nothing.
 */
export function loginThrottleStore(
  settings: AppConfig['auth']['throttle'],
  database: AppConfig['database'],
): LoginThrottleStore {
  return settings.store ?? (database.url ? 'postgres' : 'memory');
}

/**
 * The configured login throttle, its keys derived from the server secret (every instance sharing a
 * PostgreSQL store shares the secret too); refuses, at start, a PostgreSQL store without a PostgreSQL database.
 */
export function createLoginThrottle(
  settings: AppConfig['auth']['throttle'],
  database: AppConfig['database'],
  secret: AppConfig['auth']['secret'],
): LoginThrottle {
  if (!settings.enabled) return new NoLoginThrottle();
  const keys = new LoginKeys(secret);
  if (loginThrottleStore(settings, database) === 'memory') return memoryLoginThrottle(settings, keys);
  const { url } = database;
  if (!url) throw new Error('auth.throttle.store: postgres needs database.url');
  return postgresLoginThrottle(settings, keys, { ...database, url });
}
