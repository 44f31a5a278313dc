import { invalidToken } from '../../domain/errors.ts';
import type { Handler } from '../handler.ts';
import type { Clock } from '../ports/clock.ts';
import type { RefreshTokenRepository } from '../ports/refresh-token-repository.ts';
import { digestSecret } from './opaque-secret.ts';

export type LogoutCommand = { refreshToken: string };

/** Ends the login session the refresh token belongs to; logging out twice is not an error. */
export class LogoutHandler implements Handler<LogoutCommand, void, null> {
  constructor(
    private readonly refreshTokens: RefreshTokenRepository,
    private readonly clock: Clock,
  ) {}

  async execute(_caller: null, command: LogoutCommand): Promise<void> {
    const presented = await this.refreshTokens.findByDigest(digestSecret(command.refreshToken));
    if (!presented) throw invalidToken();
    await this.refreshTokens.revokeSession(presented.sessionId, this.clock.now());
  }
}
