import {
  DomainError,
  migrationNeeded,
  queryTooExpensive,
  serviceBusy,
  serviceUnavailable,
} from '../../domain/errors.ts';

/** Socket-level failures: the server is not there, went away, or the network between is broken. */
const NETWORK_CODES: ReadonlyMap<string, string> = new Map([
  ['ECONNREFUSED', 'connection refused'],
  ['ECONNRESET', 'connection reset'],
  ['ECONNABORTED', 'connection aborted'],
  ['EPIPE', 'connection closed'],
  ['ETIMEDOUT', 'connection timed out'],
  ['EHOSTUNREACH', 'host unreachable'],
  ['EHOSTDOWN', 'host down'],
  ['ENETUNREACH', 'network unreachable'],
  ['ENETDOWN', 'network down'],
  ['ENOTFOUND', 'host name not found'],
  ['EAI_AGAIN', 'host name lookup failed'],
]);

/**
 * SQLSTATEs meaning "not now" rather than "not this": the connection failed (class 08), the server is
 * shutting down, crashed or still starting (57P01–57P03; 57P01 is also what a `drop database … with
 * (force)` sends its sessions), has no connection slot left (53300), the statement ran past
 * `statement_timeout` (57014, the configured query timeout), or the database was dropped (3D000, on
 * connecting): it may be re-created, so the server waits for it rather than giving up.
 */
const SERVER_STATES: ReadonlyMap<string, string> = new Map([
  ['3D000', 'database does not exist'],
  ['57P01', 'database server shutting down'],
  ['57P02', 'database server crashed'],
  ['57P03', 'database server starting up'],
  ['53300', 'too many database connections'],
  ['57014', 'query timed out'],
]);

/**
 * pg-pool's only words when a request waited `connectionTimeoutMillis` for a connection while every one of
 * the pool's was checked out (opening a new one that times out reads differently): the instance is busy.
 */
const POOL_WAIT_TIMED_OUT = /^timeout exceeded when trying to connect/;

/** The server's words when `statement_timeout` (not an operator's `pg_cancel_backend`) cancelled a statement. */
const STATEMENT_TIMEOUT = /statement timeout/;

/** Seconds a client should wait before asking again when the pool was busy: turns free up quickly. */
const BUSY_RETRY_AFTER_S = 1;

/**
 * pg and pg-pool report these without a code. Matched at the start of the message, which pg builds
 * itself (no server text in front of them).
 */
const DRIVER_MESSAGES: ReadonlyArray<readonly [RegExp, string]> = [
  [POOL_WAIT_TIMED_OUT, 'no free database connection'],
  [/^Connection terminated due to connection timeout/, 'connection timed out'],
  [/^Connection terminated/, 'connection lost'],
  [/^Query read timeout/, 'no answer from the database'],
  [/^Client has encountered a connection error and is not queryable/, 'connection lost'],
];

/**
 * Why the database could not be used, in words safe to show anyone (no host, port, user or driver
 * text), or undefined when `error` is not a reachability failure. Looks through `cause` chains:
 * MikroORM and pg-pool wrap the socket error they got.
 */
export function unreachableReason(error: unknown): string | undefined {
  return firstInChain(error, reasonOf);
}

/**
 * The persistence boundary's translation of "the database did not serve this", the driver's error kept as
 * `cause` for logs only:
 * - a statement run as a request's work (`duringRequest`: under its kind's bound, src/domain/database-work.ts)
 *   cut by its `statement_timeout` → QUERY_TOO_EXPENSIVE (422): ask for less;
 * - every pool connection busy beyond the bounded wait → SERVICE_BUSY (503, `Retry-After`);
 * - the database cannot be reached → SERVICE_UNAVAILABLE (503).
 * Undefined for anything else, a domain error already translated included. Use as
 * `throw unavailableError(error) ?? error`. Any other statement timeout (start-up, migrations, the CLI, a
 * statement of fixed shape under the pool's own bound) is SERVICE_UNAVAILABLE, which start-up retries.
 */
export function unavailableError(error: unknown, duringRequest = false): DomainError | undefined {
  if (error instanceof DomainError) return undefined;
  const translated = translate(error, duringRequest);
  if (translated) translated.cause = error;
  return translated;
}

function translate(error: unknown, duringRequest: boolean): DomainError | undefined {
  if (duringRequest && firstInChain(error, isStatementTimeout)) return queryTooExpensive();
  if (firstInChain(error, (current) => POOL_WAIT_TIMED_OUT.test(current.message) || undefined)) {
    return serviceBusy(BUSY_RETRY_AFTER_S);
  }
  return unreachableReason(error) === undefined ? undefined : serviceUnavailable();
}

function isStatementTimeout(error: Error): true | undefined {
  return (
    ((error as { code?: unknown }).code === '57014' && STATEMENT_TIMEOUT.test(error.message)) || undefined
  );
}

/** Health's words for a database that answers without the server's own tables (SQLSTATE 42P01). */
export const TABLES_MISSING_REASON = "the database has lost the server's tables: run `datagate migrate`";

/**
 * A statement on the server's own tables that met an undefined table or schema (42P01, 3F000): the database was emptied or
 * re-created since the migrations ran. MIGRATION_NEEDED (503), the driver's error kept as `cause`; undefined
 * for anything else. Only for statements on the system tables: on a collection's table 42P01 means a stale
 * schema catalog instead.
 */
export function systemTablesMissingError(error: unknown): DomainError | undefined {
  if (!systemTablesMissing(error)) return undefined;
  const translated = migrationNeeded();
  translated.cause = error;
  return translated;
}

/** An undefined table (42P01), or an undefined schema (3F000) when the system tables live in their own. */
const MISSING_OBJECT_STATES: ReadonlySet<string> = new Set(['42P01', '3F000']);

/** Whether a statement on the server's own tables failed because one of them (or its schema) does not exist. */
export function systemTablesMissing(error: unknown): boolean {
  return (
    firstInChain(
      error,
      (current) => MISSING_OBJECT_STATES.has(String((current as { code?: unknown }).code)) || undefined,
    ) ?? false
  );
}

/** What `pick` finds first along `cause`: MikroORM and pg-pool wrap the error they got. A loop ends. */
export function firstInChain<T>(error: unknown, pick: (error: Error) => T | undefined): T | undefined {
  const seen = new Set<unknown>();
  for (let current = error; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    const found = pick(current);
    if (found !== undefined) return found;
  }
  return undefined;
}

function reasonOf(error: Error): string | undefined {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    const known = NETWORK_CODES.get(code) ?? SERVER_STATES.get(code);
    if (known) return `${known} (${code})`;
    if (/^08[0-9A-Z]{3}$/.test(code)) return `database connection failed (${code})`;
  }
  return DRIVER_MESSAGES.find(([pattern]) => pattern.test(error.message))?.[1];
}

/**
 * PostgreSQL's refusal of a login (SQLSTATE class 28: an unknown database role, a wrong password,
 * pg_hba.conf) in its own words with the state, for an operator: `role "x" does not exist` alone reads as if
 * a datagate role were missing. Undefined for anything else; looks through `cause` chains.
 */
export function refusedLoginReason(error: unknown): string | undefined {
  return firstInChain(error, (current) => {
    const code = (current as { code?: unknown }).code;
    return typeof code === 'string' && /^28[0-9A-Z]{3}$/.test(code)
      ? `${current.message} (${code})`
      : undefined;
  });
}
