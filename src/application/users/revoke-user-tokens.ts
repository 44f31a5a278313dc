import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import { requireAdmin } from '../access.ts';
import type { Handler } from '../handler.ts';
import type { Clock } from '../ports/clock.ts';
import type { RefreshTokenRepository } from '../ports/refresh-token-repository.ts';
import type { UserRepository } from '../ports/user-repository.ts';

export type RevokeUserTokensRequest = { id: string };

export type RevokeUserTokensResult = { email: string; hadStaticToken: boolean };

/**
 * Every credential of a user but the password stops working: the login sessions (refresh tokens; the
 * access tokens issued for them too when sessions are checked on each request) and the static token. The
 * operator's answer to a leaked token or a stolen laptop, where it is rarely known which token leaked: a
 * Directus admin would end the sessions and clear the token field alike. The password, if it leaked too,
 * is changed on its own (`users password`), which ends the sessions as well.
 */
export class RevokeUserTokensHandler implements Handler<RevokeUserTokensRequest, RevokeUserTokensResult> {
  constructor(
    private readonly users: UserRepository,
    private readonly refreshTokens: RefreshTokenRepository,
    private readonly clock: Clock,
  ) {}

  async execute(caller: Accountability, { id }: RevokeUserTokensRequest): Promise<RevokeUserTokensResult> {
    requireAdmin(caller);
    const user = await this.users.findById(id);
    if (!user) throw notFound('User');
    const hadStaticToken = user.tokenDigest !== null;
    if (hadStaticToken) {
      if (!(await this.users.update(user.id, { tokenDigest: null }))) throw notFound('User');
    }
    await this.refreshTokens.revokeUser(user.id, this.clock.now());
    return { email: user.email, hadStaticToken };
  }
}
