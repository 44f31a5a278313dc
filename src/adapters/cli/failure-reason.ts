import { DomainError } from '../../domain/errors.ts';
import { firstInChain, unreachableReason } from '../persistence/database-unreachable.ts';
import { sqlStateOf } from '../persistence/postgres/database-errors.ts';

/** What an operator needs to read about a failed command: the field a rule refused, or why it failed. */
export function failureReason(error: unknown): string {
  if (error instanceof DomainError && error.extensions.field)
    return `${error.extensions.field}: ${error.message}`;
  // SERVICE_UNAVAILABLE's message is written for HTTP callers; an operator wants the reason.
  const unreachable = unreachableReason(error);
  if (unreachable) return `the database cannot be reached: ${unreachable}`;
  const refused = refusedLogin(error);
  if (refused) return refused;
  return error instanceof Error ? error.message : String(error);
}

/**
 * PostgreSQL's refusal of DATABASE_URL's login (SQLSTATE class 28: an unknown database role, a wrong
 * password, pg_hba.conf), said as such: its own words, `role "x" does not exist`, read as if a datagate
 * role were missing.
 */
function refusedLogin(error: unknown): string | undefined {
  return firstInChain(error, (current) => {
    const state = sqlStateOf(current);
    return state?.startsWith('28')
      ? `the database refused the login: ${current.message} (${state})`
      : undefined;
  });
}
