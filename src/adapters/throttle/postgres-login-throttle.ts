import pg from 'pg';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import type { AppConfig } from '../config/config-schema.ts';
import { systemTablesMissing } from '../persistence/database-unreachable.ts';
import { LimiterRecentLogins } from './limiter-recent-logins.ts';
import type { LoginBudgets } from './login-budgets.ts';
import type { LoginKeys } from './login-keys.ts';
import {
  type LoginLimiters,
  limiterOptions,
  RateLimiterLoginThrottle,
} from './rate-limiter-login-throttle.ts';

/** System prefix: the schema catalog never shows it as a collection, and no user may create it. */
export const LOGIN_THROTTLE_TABLE = 'datagate_login_throttle';

export type ThrottleDatabase = Pick<AppConfig['database'], 'connectTimeout' | 'queryTimeout'> & {
  url: string;
};

/**
 * Budgets in a PostgreSQL table, shared by every server instance on the database. The throttle has a pool
 * of its own, so a login burst cannot take the connections the item queries need, and the other way round.
 */
export function postgresLoginThrottle(
  budgets: LoginBudgets,
  keys: LoginKeys,
  database: ThrottleDatabase,
  tableName = LOGIN_THROTTLE_TABLE,
): RateLimiterLoginThrottle {
  const pool = new pg.Pool({
    connectionString: database.url,
    max: 2,
    connectionTimeoutMillis: database.connectTimeout,
    statement_timeout: database.queryTimeout,
    application_name: 'datagate login throttle',
    // Idle connections must not keep a stopping process alive; close() is for tests and tidy shutdowns.
    allowExitOnIdle: true,
  });
  // An idle connection the server drops (restart, failover) is discarded by the pool and the next query
  // opens another; unhandled, the pool's 'error' event would end the process.
  pool.on('error', () => {});

  let ready: Promise<LoginLimiters> | undefined;
  const limiters = () => {
    // Forgotten on failure, so a database unreachable at start is tried again at the next login.
    ready ??= createLimiters(pool, budgets, tableName).catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    return ready;
  };
  // Its table is made when the store starts; a database dropped and re-created under a running server has
  // none, so the store starts again (the table is counters only: nothing is lost that was not already).
  const renew = (error: unknown) => {
    if (!systemTablesMissing(error)) return false;
    ready = undefined;
    return true;
  };
  return new RateLimiterLoginThrottle(limiters, keys, () => pool.end(), renew);
}

/**
 * The library creates its own table (`CREATE TABLE IF NOT EXISTS`, tolerating two instances racing to do
 * it): its upserts rely on exactly that shape (key varchar(255) primary key, points, expire in epoch ms),
 * so its DDL is the one that stays in step with its queries across upgrades. The table holds only
 * counters and recent logins that expire (losing it merely resets the budgets and makes every address
 * count every e-mail again), so it needs no migration. Without a callback the library would throw a
 * failed creation from a promise nobody awaits (an unhandled rejection); with one, the failure reaches
 * the login.
 */
function createLimiters(pool: pg.Pool, budgets: LoginBudgets, tableName: string): Promise<LoginLimiters> {
  const options = limiterOptions(budgets);
  const store = { storeClient: pool, storeType: 'pool', tableName };
  const onCreatedTable = (kind: keyof LoginLimiters) =>
    new RateLimiterPostgres({ ...store, ...options[kind], tableCreated: true, clearExpiredByTimeout: false });
  return new Promise((resolve, reject) => {
    const emailAndAddress = new RateLimiterPostgres(
      // One sweeper per table: every 5 minutes it deletes rows expired an hour ago, on an unref'd timer.
      { ...store, ...options.emailAndAddress, clearExpiredByTimeout: true },
      (error) => {
        if (error) return reject(error);
        const recentLogins = new LimiterRecentLogins(
          onCreatedTable('recentLogins'),
          options.recentLogins.duration,
        );
        resolve({ emailAndAddress, address: onCreatedTable('address'), recentLogins });
      },
    );
  });
}
