import { characterCount } from '../../domain/character-count.ts';
import { failedValidation } from '../../domain/errors.ts';

const MAX_LENGTH = 100;

/** A role's name, trimmed: 1 to 100 characters (code points, as every length of the API is counted). */
export function parseRoleName(raw: string): string {
  const name = raw.trim();
  if (name.length === 0 || characterCount(name, MAX_LENGTH) > MAX_LENGTH) {
    throw failedValidation('name', `Name must be 1 to ${MAX_LENGTH} characters long.`);
  }
  return name;
}
