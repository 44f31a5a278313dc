import { randomUUID } from 'node:crypto';
import { RefreshToken } from '../../domain/refresh-token.ts';
import type { User } from '../../domain/user.ts';
import type { AccessTokens } from '../ports/access-tokens.ts';
import type { RefreshTokenRepository } from '../ports/refresh-token-repository.ts';
import type { AuthSettings } from './auth-settings.ts';
import { digestSecret, newOpaqueSecret } from './opaque-secret.ts';

export type TokenPair = {
  accessToken: string;
  /** Unix epoch milliseconds at which the access token expires (the seed's `expires`). */
  expires: number;
  refreshToken: string;
};

/** Mints an access token plus the next refresh token of a login session; shared by login and refresh. */
export class TokenPairIssuer {
  constructor(
    private readonly accessTokens: AccessTokens,
    private readonly refreshTokens: RefreshTokenRepository,
    private readonly settings: AuthSettings,
  ) {}

  async issue(user: User, sessionId: string, now: Date): Promise<TokenPair> {
    const refreshToken = newOpaqueSecret();
    await this.refreshTokens.add(
      new RefreshToken({
        id: randomUUID(),
        sessionId,
        userId: user.id,
        tokenDigest: digestSecret(refreshToken),
        createdAt: now,
        expiresAt: new Date(now.getTime() + this.settings.refreshTokenTtlMs),
        rotatedAt: null,
        revokedAt: null,
      }),
    );
    const access = await this.accessTokens.issue({ sub: user.id, role: user.roleId, sid: sessionId }, now);
    return { accessToken: access.token, expires: access.expiresAt.getTime(), refreshToken };
  }
}
