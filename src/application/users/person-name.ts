import { characterCount } from '../../domain/character-count.ts';
import { failedValidation } from '../../domain/errors.ts';

/** What the users table holds (`varchar(255)`: characters, that is code points, not UTF-16 units). */
const MAX_LENGTH = 255;

/**
 * A first or last name as given, or null. Longer than the column holds is refused here, naming the
 * field, rather than by the database, where it would be an unexpected error (500).
 */
export function parsePersonName(field: 'first_name' | 'last_name', value: string | null): string | null {
  if (value !== null && characterCount(value, MAX_LENGTH) > MAX_LENGTH) {
    throw failedValidation(field, `Must be at most ${MAX_LENGTH} characters long.`);
  }
  return value;
}
