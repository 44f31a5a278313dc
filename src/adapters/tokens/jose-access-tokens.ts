import { randomUUID, webcrypto } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';
import type {
  AccessTokenClaims,
  AccessTokens,
  IssuedAccessToken,
  VerifiedAccessToken,
} from '../../application/ports/access-tokens.ts';
import { invalidToken, tokenExpired } from '../../domain/errors.ts';
import {
  accessTokenClaims,
  CLOCK_TOLERANCE_SECONDS,
  claimsPayload,
  expirySeconds,
  secretBytes,
} from './access-token-claims.ts';

export type JoseAccessTokensOptions = { secret: string; issuer: string; ttlMs: number };

const ALG = 'HS256';
/** RFC 9068 access-token type: a JWT minted for another purpose (an ID token, say) is not accepted here. */
const TYP = 'at+jwt';
/** Three base64url segments; a shape test only, so static tokens skip signature verification. */
const JWS_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/** HS256 JWT access tokens (docs/api.md §3) with jose. */
export class JoseAccessTokens implements AccessTokens {
  private readonly secret: Uint8Array;
  private key?: Promise<webcrypto.CryptoKey>;

  constructor(private readonly options: JoseAccessTokensOptions) {
    this.secret = secretBytes(options.secret, 'JoseAccessTokens');
  }

  async issue(claims: AccessTokenClaims, now: Date): Promise<IssuedAccessToken> {
    const exp = expirySeconds(now, this.options.ttlMs);
    const token = await new SignJWT(claimsPayload(claims))
      .setProtectedHeader({ alg: ALG, typ: TYP })
      .setIssuer(this.options.issuer)
      .setIssuedAt(now)
      .setExpirationTime(exp)
      .setJti(randomUUID())
      .sign(await this.signingKey());
    return { token, expiresAt: new Date(exp * 1000) };
  }

  async verify(token: string, now: Date): Promise<VerifiedAccessToken> {
    let payload: Readonly<Record<string, unknown>>;
    try {
      // A key object (not a key-resolving function) means kid/jku/x5u/jwk headers are never consulted,
      // so a token cannot point us at a key of its choosing.
      ({ payload } = await jwtVerify(token, await this.signingKey(), {
        algorithms: [ALG],
        typ: TYP,
        issuer: this.options.issuer,
        // `sub` and `sid` are required of a session's token by accessTokenClaims; a preview has neither.
        requiredClaims: ['exp', 'iat'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        currentDate: now,
      }));
    } catch (error) {
      // jose's messages describe the token's defects; callers only learn "expired" or "invalid".
      throw error instanceof errors.JWTExpired ? tokenExpired() : invalidToken();
    }
    // jose checks only that `iat` is a number; a token from further in the future than the clock
    // tolerance is refused, as the PASETO adapter refuses it (docs/api.md §3).
    if ((payload.iat as number) > now.getTime() / 1000 + CLOCK_TOLERANCE_SECONDS) throw invalidToken();
    const exp = payload.exp as number;
    // jose granted the clock tolerance to `exp` as well; take it back (see CLOCK_TOLERANCE_SECONDS).
    if (now.getTime() >= exp * 1000) throw tokenExpired();
    return { ...accessTokenClaims(payload), expiresAt: new Date(exp * 1000) };
  }

  looksLikeAccessToken(token: string): boolean {
    return JWS_SHAPE.test(token);
  }

  /**
   * Imported once: a pre-imported WebCrypto HMAC key verifies ~2x faster than passing raw bytes, which
   * jose would re-import on every call (stack.md §7). Lazy because importKey is async and constructors
   * are not; it cannot fail for raw HMAC bytes, so caching the promise caches no error.
   */
  private signingKey(): Promise<webcrypto.CryptoKey> {
    this.key ??= webcrypto.subtle.importKey('raw', this.secret, { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ]);
    return this.key;
  }
}
