import { randomUUID } from 'node:crypto';
import type {
  AccessTokenClaims,
  AccessTokens,
  VerifiedAccessToken,
} from '../../../src/application/ports/access-tokens.ts';
import { invalidToken, tokenExpired } from '../../../src/domain/errors.ts';

const PREFIX = 'mem.';

/** Keeps issued tokens in a map: handler tests get real expiry semantics without any cryptography. */
export class FakeAccessTokens implements AccessTokens {
  private readonly issued = new Map<string, { verified: VerifiedAccessToken; issuedAt: Date }>();

  constructor(private readonly ttlMs: number) {}

  async issue(claims: AccessTokenClaims, now: Date) {
    const expiresAt = new Date(Math.floor((now.getTime() + this.ttlMs) / 1000) * 1000);
    const token = `${PREFIX}${randomUUID()}`;
    this.issued.set(token, { verified: { ...claims, expiresAt }, issuedAt: now });
    return { token, expiresAt };
  }

  async verify(token: string, now: Date) {
    const found = this.issued.get(token);
    if (!found) throw invalidToken();
    // As the real adapters: issued more than their 5 s clock tolerance in the future is no token.
    if (now.getTime() < found.issuedAt.getTime() - 5_000) throw invalidToken();
    if (now >= found.verified.expiresAt) throw tokenExpired();
    return { ...found.verified };
  }

  looksLikeAccessToken(token: string) {
    return token.startsWith(PREFIX);
  }
}
