import { failedValidation } from '../../domain/errors.ts';

const MAX_LENGTH = 100;

export function parseRoleName(raw: string): string {
  const name = raw.trim();
  if (name.length === 0 || name.length > MAX_LENGTH) {
    throw failedValidation('name', `Name must be 1 to ${MAX_LENGTH} characters long.`);
  }
  return name;
}
