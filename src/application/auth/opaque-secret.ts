import { createHash, randomBytes } from 'node:crypto';

/** 256 random bits, URL-safe: refresh tokens and generated static tokens. */
export function newOpaqueSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * What is stored instead of a bearer secret. A plain SHA-256 suffices (no salt, no stretching):
 * the secrets are 256-bit random or ≥ 32 characters, so there is no dictionary to attack, and the
 * digest stays an exact-match index key.
 */
export function digestSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}
