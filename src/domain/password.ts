import { characterCount } from './character-count.ts';
import { failedValidation } from './errors.ts';

export const PASSWORD_MIN_LENGTH = 8;
// argon2 hashes any length, but an unbounded password is a cheap way to make the server burn CPU.
export const PASSWORD_MAX_LENGTH = 512;

/** Checks a new password before it is hashed; login never applies this (an old password may predate the rule). */
export function assertAcceptablePassword(password: string, field = 'password'): void {
  const length = characterCount(password, PASSWORD_MAX_LENGTH);
  if (length < PASSWORD_MIN_LENGTH) {
    throw failedValidation(field, `Password must be at least ${PASSWORD_MIN_LENGTH} characters long.`);
  }
  if (length > PASSWORD_MAX_LENGTH) {
    throw failedValidation(field, `Password must be at most ${PASSWORD_MAX_LENGTH} characters long.`);
  }
}
