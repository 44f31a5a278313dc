import type { AccessTokenClaims } from '../../application/ports/access-tokens.ts';
import { invalidToken } from '../../domain/errors.ts';

/**
 * 256 bits: HS256 is only as strong as its key (RFC 7518 §3.2 asks for at least the hash size), and the
 * PASETO adapter stretches the same secret into its Ed25519 seed. jose accepts even a 5-byte key, so the
 * check has to live here.
 */
const MIN_SECRET_BYTES = 32;

/**
 * Skew allowed between the instances that issue and verify tokens, in seconds. It applies to the
 * "not yet valid" checks (`nbf`; PASETO also rejects an `iat` in the future) so that a token minted on a
 * server whose clock runs ahead is not refused by its peers right after login. Expiry is NOT stretched:
 * the adapters reject at `exp` exactly, so the `expires` a client is given is the truth.
 */
export const CLOCK_TOLERANCE_SECONDS = 5;

/** The secret's UTF-8 bytes; throws at start-up (not at the first login) when the secret is too weak. */
export function secretBytes(secret: string, adapter: string): Uint8Array {
  const bytes = new TextEncoder().encode(secret);
  if (bytes.byteLength < MIN_SECRET_BYTES) {
    throw new Error(`${adapter}: the token secret must be at least ${MIN_SECRET_BYTES} bytes long`);
  }
  return bytes;
}

/** Expiry in whole epoch seconds, because JWT `exp` has no fraction and `expires` must equal `exp * 1000`. */
export function expirySeconds(now: Date, ttlMs: number): number {
  return Math.floor((now.getTime() + ttlMs) / 1000);
}

/**
 * Our claims out of an authenticated payload. A well-signed token with other shapes was not minted by
 * this code (or by an older, incompatible version of it), so it is refused like any other bad token.
 */
export function accessTokenClaims(payload: Readonly<Record<string, unknown>>): AccessTokenClaims {
  const { sub, sid, role } = payload;
  if (typeof sub !== 'string' || typeof sid !== 'string' || (role !== null && typeof role !== 'string')) {
    throw invalidToken();
  }
  return { sub, role, sid };
}
