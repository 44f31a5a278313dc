import { DomainError } from '../../domain/errors.ts';
import { refusedLoginReason, unreachableReason } from '../persistence/database-unreachable.ts';

/** What an operator needs to read about a failed command: the field a rule refused, or why it failed. */
export function failureReason(error: unknown): string {
  if (error instanceof DomainError && error.extensions.field)
    return `${error.extensions.field}: ${error.message}`;
  // SERVICE_UNAVAILABLE's message is written for HTTP callers; an operator wants the reason.
  const unreachable = unreachableReason(error);
  if (unreachable) return `the database cannot be reached: ${unreachable}`;
  const refused = refusedLoginReason(error);
  if (refused) return `the database refused the login: ${refused}`;
  return error instanceof Error ? error.message : String(error);
}
