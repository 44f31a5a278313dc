import type { DatabaseFailure } from '../../application/ports/metrics.ts';
import { DomainError } from '../../domain/errors.ts';

/**
 * The kind of database failure behind an error that reached a caller, or undefined when it was none.
 * The persistence adapters translate driver errors into contract errors and keep the driver's error as
 * `cause`: a contract error without one was refused by the server itself (a 503 while starting, a 429).
 * An unexpected error (a 500) counts when a SQLSTATE is found along its causes.
 */
export function databaseFailureOf(error: unknown): DatabaseFailure | undefined {
  if (error instanceof DomainError) {
    if (error.cause === undefined) return undefined;
    if (error.extensions.reason === 'MIGRATION_NEEDED') return 'tables_missing';
    switch (error.code) {
      case 'SERVICE_UNAVAILABLE':
        return 'unreachable';
      case 'SERVICE_BUSY':
        return 'pool_exhausted';
      case 'QUERY_TOO_EXPENSIVE':
        return 'statement_timeout';
      default:
        return undefined;
    }
  }
  return hasSqlState(error) ? 'other' : undefined;
}

/** Five characters with a digit among them: every SQLSTATE has one, socket codes (EPIPE) have none. */
const SQLSTATE = /^(?=.*\d)[0-9A-Z]{5}$/;

function hasSqlState(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let current = error; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && SQLSTATE.test(code)) return true;
  }
  return false;
}
