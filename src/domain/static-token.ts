import { characterCount } from './character-count.ts';
import { failedValidation } from './errors.ts';

export const STATIC_TOKEN_MIN_LENGTH = 32;
export const STATIC_TOKEN_MAX_LENGTH = 512;

/** Visible ASCII only (RFC 5234 VCHAR): what an `Authorization: Bearer` header can carry as it is. */
const SENDABLE_TOKEN = /^[\x21-\x7e]*$/;

/**
 * A static token is a bearer secret: short ones are guessable, so they are refused; so is one with a
 * space, a control character or a non-ASCII character, which no `Authorization` header could carry.
 */
export function assertAcceptableStaticToken(token: string, field = 'token'): void {
  const length = characterCount(token, STATIC_TOKEN_MAX_LENGTH);
  if (length < STATIC_TOKEN_MIN_LENGTH) {
    throw failedValidation(field, `Token must be at least ${STATIC_TOKEN_MIN_LENGTH} characters long.`);
  }
  if (length > STATIC_TOKEN_MAX_LENGTH) {
    throw failedValidation(field, `Token must be at most ${STATIC_TOKEN_MAX_LENGTH} characters long.`);
  }
  if (!SENDABLE_TOKEN.test(token)) {
    throw failedValidation(
      field,
      'Token must be made of visible ASCII characters only: no spaces, control or non-ASCII characters.',
    );
  }
}
