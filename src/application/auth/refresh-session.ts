import type { RequestOrigin } from '../../domain/accountability.ts';
import { DomainError, invalidToken, tokenExpired, userSuspended } from '../../domain/errors.ts';
import { decideRefresh } from '../../domain/refresh-rotation-policy.ts';
import type { RefreshToken } from '../../domain/refresh-token.ts';
import type { User } from '../../domain/user.ts';
import { recordSessionActivity } from '../activity/session-activity.ts';
import type { Handler } from '../handler.ts';
import type { ActivityLog } from '../ports/activity-log.ts';
import type { Clock } from '../ports/clock.ts';
import type { RefreshTokenRepository } from '../ports/refresh-token-repository.ts';
import type { UserRepository } from '../ports/user-repository.ts';
import type { AuthSettings } from './auth-settings.ts';
import { digestSecret } from './opaque-secret.ts';
import type { SuccessorSeal } from './successor-seal.ts';
import type { TokenPair, TokenPairIssuer } from './token-pair.ts';

export type RefreshSessionCommand = { refreshToken: string; origin?: RequestOrigin };

/**
 * Trades a refresh token for its successor pair (docs/api.md §3). A token has at most one successor: the
 * first use mints and stores it, and every use within the grace period, concurrent ones included,
 * answers that same pair, so a session never branches.
 */
export class RefreshSessionHandler implements Handler<RefreshSessionCommand, TokenPair, null> {
  constructor(
    private readonly refreshTokens: RefreshTokenRepository,
    private readonly users: UserRepository,
    private readonly pairs: TokenPairIssuer,
    private readonly successors: SuccessorSeal,
    private readonly clock: Clock,
    private readonly settings: AuthSettings,
    private readonly activity?: ActivityLog,
  ) {}

  /**
   * A refused refresh of a session that exists (reuse, expiry, revocation, a suspended user) is an
   * activity entry of its user; a token that matches nothing is not, so guessing cannot fill the log.
   */
  async execute(_caller: null, { refreshToken, origin }: RefreshSessionCommand): Promise<TokenPair> {
    const digest = digestSecret(refreshToken);
    const presented = await this.refreshTokens.findByDigest(digest);
    if (!presented) throw invalidToken();
    try {
      return await this.exchange(presented, refreshToken, digest);
    } catch (error) {
      if (error instanceof DomainError) {
        await recordSessionActivity(this.activity, 'refresh_failed', presented.userId, origin);
      }
      throw error;
    }
  }

  private async exchange(presented: RefreshToken, refreshToken: string, digest: string): Promise<TokenPair> {
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
      case 'replay-successor':
        await this.activeUser(presented.userId);
        return this.successorOf(presented, refreshToken);
      case 'rotate': {
        const user = await this.activeUser(presented.userId);
        const minted = await this.pairs.mint(user, presented.sessionId, now);
        const sealed = this.successors.seal(minted.pair, refreshToken);
        if (await this.refreshTokens.rotate(presented.id, minted.refreshToken, sealed, now))
          return minted.pair;
        // A concurrent refresh of this token won the rotation a moment ago: answer the pair it stored,
        // not this one, which was never stored. A revocation that won instead reads as revoked.
        const spent = await this.refreshTokens.findByDigest(digest);
        if (!spent) throw invalidToken();
        return this.successorOf(spent, refreshToken);
      }
    }
  }

  private async activeUser(id: string): Promise<User> {
    const user = await this.users.findById(id);
    if (!user) throw invalidToken();
    if (!user.isActive) throw userSuspended();
    return user;
  }

  /**
   * The pair `spent` was rotated into. A token spent without one (by a version before sealed successors)
   * or revoked since has none to give.
   */
  private successorOf(spent: RefreshToken, refreshToken: string): TokenPair {
    if (spent.revokedAt !== null || spent.sealedSuccessor === null) throw invalidToken();
    const pair = this.successors.open(spent.sealedSuccessor, refreshToken);
    if (!pair) throw invalidToken();
    return pair;
  }
}
