import type { LoginThrottle } from '../../application/ports/login-throttle.ts';
import type { AppConfig } from '../config/config-schema.ts';
import { memoryLoginThrottle } from './memory-login-throttle.ts';
import { NoLoginThrottle } from './no-login-throttle.ts';
import { postgresLoginThrottle } from './postgres-login-throttle.ts';

/** The configured login throttle; refuses, at start, a PostgreSQL store without a PostgreSQL database. */
export function createLoginThrottle(
  settings: AppConfig['auth']['throttle'],
  database: AppConfig['database'],
): LoginThrottle {
  if (!settings.enabled) return new NoLoginThrottle();
  if (settings.store === 'memory') return memoryLoginThrottle(settings);
  const { url } = database;
  if (!url) throw new Error('auth.throttle.store: postgres needs database.url');
  return postgresLoginThrottle(settings, { ...database, url });
}
