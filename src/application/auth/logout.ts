import type { RequestOrigin } from '../../domain/accountability.ts';
import { invalidToken } from '../../domain/errors.ts';
import { recordSessionActivity } from '../activity/session-activity.ts';
import type { Handler } from '../handler.ts';
import type { ActivityLog } from '../ports/activity-log.ts';
import type { Clock } from '../ports/clock.ts';
import type { RefreshTokenRepository } from '../ports/refresh-token-repository.ts';
import { digestSecret } from './opaque-secret.ts';

export type LogoutCommand = { refreshToken: string; origin?: RequestOrigin };

/** Ends the login session the refresh token belongs to; logging out twice is not an error. */
export class LogoutHandler implements Handler<LogoutCommand, void, null> {
  constructor(
    private readonly refreshTokens: RefreshTokenRepository,
    private readonly clock: Clock,
    private readonly activity?: ActivityLog,
  ) {}

  async execute(_caller: null, command: LogoutCommand): Promise<void> {
    const presented = await this.refreshTokens.findByDigest(digestSecret(command.refreshToken));
    if (!presented) throw invalidToken();
    await this.refreshTokens.revokeSession(presented.sessionId, this.clock.now());
    await recordSessionActivity(this.activity, 'logout', presented.userId, command.origin);
  }
}
