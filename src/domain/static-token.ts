import { characterCount } from './character-count.ts';
import { failedValidation } from './errors.ts';

export const STATIC_TOKEN_MIN_LENGTH = 32;
export const STATIC_TOKEN_MAX_LENGTH = 512;

/** A static token is a bearer secret: short ones are guessable, so they are refused. */
export function assertAcceptableStaticToken(token: string, field = 'token'): void {
  const length = characterCount(token, STATIC_TOKEN_MAX_LENGTH);
  if (length < STATIC_TOKEN_MIN_LENGTH) {
    throw failedValidation(field, `Token must be at least ${STATIC_TOKEN_MIN_LENGTH} characters long.`);
  }
  if (length > STATIC_TOKEN_MAX_LENGTH) {
    throw failedValidation(field, `Token must be at most ${STATIC_TOKEN_MAX_LENGTH} characters long.`);
  }
}
