import { characterCount } from '../../domain/character-count.ts';
import { failedValidation } from '../../domain/errors.ts';

/**
 * A role's description says in a few sentences whom the role is for: its column is unbounded text, and
 * without a limit of its own only the body limit (1 MiB) bounded what every list of roles then carries.
 */
const MAX_LENGTH = 1000;

export function parseRoleDescription(value: string | null): string | null {
  if (value !== null && characterCount(value, MAX_LENGTH) > MAX_LENGTH) {
    throw failedValidation('description', `Description must be at most ${MAX_LENGTH} characters long.`);
  }
  return value;
}
