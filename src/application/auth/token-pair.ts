import { randomUUID } from 'node:crypto';
import { RefreshToken } from '../../domain/refresh-token.ts';
import type { User } from '../../domain/user.ts';
import type { AccessTokens } from '../ports/access-tokens.ts';
import type { RefreshTokenRepository } from '../ports/refresh-token-repository.ts';
import type { AuthSettings } from './auth-settings.ts';
import { digestSecret, newOpaqueSecret } from './opaque-secret.ts';

/** An access token as handed out: alone for a role preview, with a refresh token for a login session. */
export type AccessTokenGrant = {
  accessToken: string;
  /** Unix epoch milliseconds at which the access token expires (the seed's `expires`). */
  expires: number;
};

export type TokenPair = AccessTokenGrant & { refreshToken: string };

/** A pair not handed out yet, with the row its refresh token will be stored as. */
export type MintedPair = { pair: TokenPair; refreshToken: RefreshToken };

/** Mints an access token plus the next refresh token of a login session; shared by login and refresh. */
export class TokenPairIssuer {
  constructor(
    private readonly accessTokens: AccessTokens,
    private readonly refreshTokens: RefreshTokenRepository,
    private readonly settings: AuthSettings,
  ) {}

  /**
   * A pair whose refresh token is stored at once: the first of a new session, started only while `user`
   * is still active with the password hash it was read with; null when a change since has ended its
   * sessions (a login racing a suspension or a new password).
   */
  async issue(user: User, sessionId: string, now: Date): Promise<TokenPair | null> {
    const minted = await this.mint(user, sessionId, now);
    if (!(await this.refreshTokens.addFirstOfSession(minted.refreshToken, user.passwordHash))) return null;
    return minted.pair;
  }

  /** A pair whose refresh token is not stored yet: a refresh stores it only if it wins the rotation. */
  async mint(user: User, sessionId: string, now: Date): Promise<MintedPair> {
    const refreshToken = newOpaqueSecret();
    const access = await this.accessTokens.issue({ sub: user.id, role: user.roleId, sid: sessionId }, now);
    return {
      pair: { accessToken: access.token, expires: access.expiresAt.getTime(), refreshToken },
      refreshToken: new RefreshToken({
        id: randomUUID(),
        sessionId,
        userId: user.id,
        tokenDigest: digestSecret(refreshToken),
        createdAt: now,
        expiresAt: new Date(now.getTime() + this.settings.refreshTokenTtlMs),
        rotatedAt: null,
        revokedAt: null,
        sealedSuccessor: null,
      }),
    };
  }
}
