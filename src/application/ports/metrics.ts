/**
 * What operators measure (docs/decisions/0021-metrics.md). Each method is named for what happened, not for
 * the instrument behind it; the prom-client adapter turns them into counters, gauges and histograms, and
 * `NO_METRICS` is what a server without `metrics.port` gets.
 */
export interface Metrics {
  /** One HTTP request answered. */
  requestServed(request: ServedRequest): void;
  loginAttempted(outcome: LoginOutcome): void;
  /** A database failure that reached a caller. */
  databaseFailed(kind: DatabaseFailure): void;
  /** The lookups of one in-process cache. */
  cache(name: CacheName): CacheMeter;
  readonly passwordHashes: HashQueueMeter;
  /** Read at every scrape: the database connections of this process, when there is a pool to read. */
  watchPool(usage: () => PoolUsage | undefined): void;
}

export type ServedRequest = {
  /**
   * The route template (`/items/:collection/:key`), never the path a client sent: one series per route,
   * however many ids and collections there are.
   */
  readonly route: string;
  readonly method: string;
  readonly status: number;
  readonly seconds: number;
};

/** A right password of a suspended user is a failure too: no session was opened. */
export type LoginOutcome = 'success' | 'failure' | 'throttled';

/**
 * - `unreachable`: no connection (refused, lost, the server shutting down or starting);
 * - `pool_exhausted`: every connection busy beyond the bounded wait (SERVICE_BUSY);
 * - `statement_timeout`: a request's statement cut by its `statement_timeout` (QUERY_TOO_EXPENSIVE);
 * - `tables_missing`: the database answers without the server's tables (MIGRATION_NEEDED);
 * - `other`: any other database error that became a 500.
 */
export type DatabaseFailure =
  | 'unreachable'
  | 'pool_exhausted'
  | 'statement_timeout'
  | 'tables_missing'
  | 'other';

/** Every in-process cache, by what it holds. */
export type CacheName =
  | 'users'
  | 'user_tokens'
  | 'roles'
  | 'sessions'
  | 'permissions'
  | 'access_tokens'
  | 'read_rules';

/** A lookup answered from memory (`hit`) or read through (`miss`). */
export interface CacheMeter {
  hit(): void;
  miss(): void;
}

/** The password hasher's line: hashes run a few at a time, the others wait for a slot. */
export interface HashQueueMeter {
  /** How many hashes wait for a slot, now. */
  waiting(count: number): void;
  /** A hash got its slot after this long (0 when one was free). */
  started(waitedSeconds: number): void;
}

/** A connection pool right now; embedded PGlite is a pool of one. */
export type PoolUsage = {
  /** Connections open. */
  readonly size: number;
  /** Connections it may open, at most. */
  readonly max: number;
  /** Connections checked out by work in progress. */
  readonly inUse: number;
  /** Work waiting for a connection. */
  readonly waiting: number;
};

const IGNORED_CACHE: CacheMeter = { hit() {}, miss() {} };

/** Measures nothing: the default of every instrumented class, and the server's when metrics are off. */
export const NO_METRICS: Metrics = {
  requestServed() {},
  loginAttempted() {},
  databaseFailed() {},
  cache: () => IGNORED_CACHE,
  passwordHashes: { waiting() {}, started() {} },
  watchPool() {},
};
