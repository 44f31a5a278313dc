import type { AccessTokenClaims, PreviewClaims } from '../../application/ports/access-tokens.ts';
import { invalidToken } from '../../domain/errors.ts';

/**
 * 256 bits: HS256 is only as strong as its key (RFC 7518 §3.2 asks for at least the hash size), and the
 * PASETO adapter stretches the same secret into its Ed25519 seed. jose accepts even a 5-byte key, so the
 * check has to live here.
 */
const MIN_SECRET_BYTES = 32;

/**
 * Skew allowed between the instances that issue and verify tokens, in seconds. It applies to the
 * "not yet valid" checks (`nbf`, and an `iat` in the future, which both adapters refuse) so that a token
 * minted on a server whose clock runs ahead is not refused by its peers right after login. Expiry is NOT
 * stretched: the adapters reject at `exp` exactly, so the `expires` a client is given is the truth.
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
 * The claims as a token carries them, beside the adapter's own (`iss`, `iat`, `exp`, `jti`). A preview
 * carries no `sub` and no top-level `sid` (see PreviewClaims).
 */
export function claimsPayload(claims: AccessTokenClaims): Record<string, unknown> {
  if ('preview' in claims) return { preview: claims.preview };
  return { sub: claims.sub, role: claims.role, sid: claims.sid };
}

/**
 * Our claims out of an authenticated payload. A well-signed token with other shapes was not minted by
 * this code (or by an older, incompatible version of it), so it is refused like any other bad token.
 */
export function accessTokenClaims(payload: Readonly<Record<string, unknown>>): AccessTokenClaims {
  const { sub, sid, role, preview } = payload;
  if (preview !== undefined) return previewClaims(preview, payload);
  if (typeof sub !== 'string' || typeof sid !== 'string' || !isNullableString(role)) throw invalidToken();
  return { sub, role, sid };
}

function previewClaims(preview: unknown, payload: Readonly<Record<string, unknown>>): PreviewClaims {
  if (payload.sub !== undefined || payload.sid !== undefined) throw invalidToken();
  if (typeof preview !== 'object' || preview === null) throw invalidToken();
  const { role, issuer, session } = preview as Record<string, unknown>;
  if (typeof issuer !== 'string' || !isNullableString(role) || !isNullableString(session))
    throw invalidToken();
  return { preview: { role, issuer, session } };
}

function isNullableString(value: unknown): value is string | null {
  return value === null || typeof value === 'string';
}
