import { createPrivateKey, hkdfSync, randomUUID } from 'node:crypto';
import { ClaimValidationError, PublicProtocol } from 'paseto';
import {
  GetPublicKeyFactory,
  ImportSecretKeyFactory,
  type PublicKey,
  type SecretKey,
  SignFactory,
  VerifyFactory,
} from 'paseto/v4/public';
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

export type PasetoAccessTokensOptions = { secret: string; issuer: string; ttlMs: number };

const PREFIX = 'v4.public.';
/** HKDF `info`: separates this key from every other use of the same secret (the JWT HMAC key included). */
const SEED_LABEL = 'datagate paseto v4.public ed25519 seed v1';
/**
 * RFC 8410 §7 PKCS#8 header for an Ed25519 private key (OneAsymmetricKey, OID 1.3.101.112, 32-byte
 * octet string). Only the ASN.1 framing is written here; node:crypto does the curve arithmetic.
 */
const ED25519_PKCS8_HEADER = Buffer.from('302e020100300506032b657004220420', 'hex');

const v4 = new PublicProtocol(SignFactory, VerifyFactory, ImportSecretKeyFactory, GetPublicKeyFactory);

type KeyPair = { secretKey: SecretKey; publicKey: PublicKey };

/**
 * PASETO v4.public access tokens (Ed25519), the alternative to JWT. The key pair is derived from the
 * configured secret, so restarts and every instance sharing the secret verify each other's tokens
 * without distributing key files.
 */
export class PasetoAccessTokens implements AccessTokens {
  private readonly secret: Uint8Array;
  private keys?: Promise<KeyPair>;

  constructor(private readonly options: PasetoAccessTokensOptions) {
    this.secret = secretBytes(options.secret, 'PasetoAccessTokens');
  }

  async issue(claims: AccessTokenClaims, now: Date): Promise<IssuedAccessToken> {
    const expiresAt = new Date(expirySeconds(now, this.options.ttlMs) * 1000);
    const { secretKey } = await this.keyPair();
    const token = await v4.Sign(
      secretKey,
      {
        iss: this.options.issuer,
        ...claimsPayload(claims),
        jti: randomUUID(),
        exp: rfc3339(expiresAt),
      },
      // `now` drives the `iat` paseto adds; `exp` is ours, in whole seconds like the JWT adapter's.
      { now },
    );
    return { token, expiresAt };
  }

  async verify(token: string, now: Date): Promise<VerifiedAccessToken> {
    let payload: Readonly<Record<string, unknown>>;
    try {
      const { publicKey } = await this.keyPair();
      ({ claims: payload } = await v4.Verify(publicKey, token, {
        issuer: this.options.issuer,
        // `sub` and `sid` are required of a session's token by accessTokenClaims; a preview has neither.
        requiredClaims: ['iat'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        now,
      }));
    } catch (error) {
      // Claims are validated only after the signature, and every token we sign has a well-formed `exp`,
      // so an `exp` complaint means expiry. paseto's messages are never passed on.
      throw error instanceof ClaimValidationError && error.claim === 'exp' ? tokenExpired() : invalidToken();
    }
    // paseto validated `exp` as an RFC 3339 string and granted it the clock tolerance; take that back.
    const expiresAt = new Date(payload.exp as string);
    if (now >= expiresAt) throw tokenExpired();
    return { ...accessTokenClaims(payload), expiresAt };
  }

  looksLikeAccessToken(token: string): boolean {
    return token.startsWith(PREFIX);
  }

  /** Derived on first use (paseto's key import is async) and kept for the life of the process. */
  private keyPair(): Promise<KeyPair> {
    this.keys ??= (async () => {
      const secretKey = await v4.ImportSecretKey(`k4.secret.${this.ed25519KeyMaterial()}`);
      return { secretKey, publicKey: await v4.GetPublicKey(secretKey) };
    })();
    return this.keys;
  }

  /** PASERK k4.secret material: base64url(seed ‖ public key), seed = HKDF-SHA256(secret, SEED_LABEL). */
  private ed25519KeyMaterial(): string {
    const seed = Buffer.from(hkdfSync('sha256', this.secret, new Uint8Array(0), SEED_LABEL, 32));
    const privateKey = createPrivateKey({
      key: Buffer.concat([ED25519_PKCS8_HEADER, seed]),
      format: 'der',
      type: 'pkcs8',
    });
    const jwk = privateKey.export({ format: 'jwk' });
    return Buffer.concat([seed, Buffer.from(jwk.x!, 'base64url')]).toString('base64url');
  }
}

/** RFC 3339 without the milliseconds `toISOString` adds (they are always zero here). */
function rfc3339(date: Date): string {
  return date.toISOString().replace('.000Z', 'Z');
}
