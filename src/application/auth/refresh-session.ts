import { invalidToken, tokenExpired, userSuspended } from '../../domain/errors.ts';
import { decideRefresh } from '../../domain/refresh-rotation-policy.ts';
import type { Handler } from '../handler.ts';
import type { Clock } from '../ports/clock.ts';
import type { RefreshTokenRepository } from '../ports/refresh-token-repository.ts';
import type { UserRepository } from '../ports/user-repository.ts';
import type { AuthSettings } from './auth-settings.ts';
import { digestSecret } from './opaque-secret.ts';
import type { TokenPair, TokenPairIssuer } from './token-pair.ts';

export type RefreshSessionCommand = { refreshToken: string };

export class RefreshSessionHandler implements Handler<RefreshSessionCommand, TokenPair, null> {
  constructor(
    private readonly refreshTokens: RefreshTokenRepository,
    private readonly users: UserRepository,
    private readonly pairs: TokenPairIssuer,
    private readonly clock: Clock,
    private readonly settings: AuthSettings,
  ) {}

  async execute(_caller: null, command: RefreshSessionCommand): Promise<TokenPair> {
    const presented = await this.refreshTokens.findByDigest(digestSecret(command.refreshToken));
    if (!presented) throw invalidToken();
    const now = this.clock.now();
    const decision = decideRefresh(presented, now, this.settings.refreshReuseGraceMs);
    switch (decision.kind) {
      case 'revoked':
        throw invalidToken();
      case 'expired':
        throw tokenExpired();
      case 'reuse-detected':
        await this.refreshTokens.revokeSession(presented.sessionId, now);
        throw invalidToken();
      case 'rotate':
        // Losing this race means a concurrent request spent the token a moment ago: that is
        // the within-grace case, which also succeeds, so the result is not needed.
        await this.refreshTokens.markRotated(presented.id, now);
        break;
      case 'rotate-within-grace':
        break;
    }
    const user = await this.users.findById(presented.userId);
    if (!user) throw invalidToken();
    if (!user.isActive) throw userSuspended();
    return this.pairs.issue(user, presented.sessionId, now);
  }
}
