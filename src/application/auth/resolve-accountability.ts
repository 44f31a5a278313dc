import { type Accountability, PUBLIC_ACCOUNTABILITY } from '../../domain/accountability.ts';
import { DomainError, invalidToken, userSuspended } from '../../domain/errors.ts';
import type { User } from '../../domain/user.ts';
import type { Handler } from '../handler.ts';
import type { AccessTokens } from '../ports/access-tokens.ts';
import type { Clock } from '../ports/clock.ts';
import type { RefreshTokenRepository } from '../ports/refresh-token-repository.ts';
import type { RoleRepository } from '../ports/role-repository.ts';
import type { UserRepository } from '../ports/user-repository.ts';
import type { AuthSettings } from './auth-settings.ts';
import { digestSecret } from './opaque-secret.ts';

export type ResolveAccountabilityQuery = { token: string | null };

/**
 * Turns the presented token into the caller, once per request. Rights come from the user's
 * current record and role, never from token claims, so a role change or suspension applies at once.
 */
export class ResolveAccountabilityHandler
  implements Handler<ResolveAccountabilityQuery, Accountability, null>
{
  constructor(
    private readonly accessTokens: AccessTokens,
    private readonly users: UserRepository,
    private readonly roles: RoleRepository,
    private readonly refreshTokens: RefreshTokenRepository,
    private readonly clock: Clock,
    private readonly settings: Pick<AuthSettings, 'checkSessionOnEachRequest'>,
  ) {}

  async execute(_caller: null, query: ResolveAccountabilityQuery): Promise<Accountability> {
    if (query.token === null) return PUBLIC_ACCOUNTABILITY;
    const now = this.clock.now();
    if (this.accessTokens.looksLikeAccessToken(query.token)) {
      try {
        return await this.fromAccessToken(query.token, now);
      } catch (error) {
        // A static token may happen to look like an access token; only a failed signature falls through.
        if (!(error instanceof DomainError && error.code === 'INVALID_TOKEN')) throw error;
      }
    }
    return this.fromStaticToken(query.token);
  }

  private async fromAccessToken(token: string, now: Date): Promise<Accountability> {
    const claims = await this.accessTokens.verify(token, now);
    const user = await this.users.findById(claims.sub);
    if (!user) throw invalidToken();
    if (
      this.settings.checkSessionOnEachRequest &&
      !(await this.refreshTokens.isSessionActive(claims.sid, now))
    ) {
      throw invalidToken();
    }
    return this.accountabilityOf(user, claims.sid);
  }

  private async fromStaticToken(token: string): Promise<Accountability> {
    const user = await this.users.findByTokenDigest(digestSecret(token));
    if (!user) throw invalidToken();
    return this.accountabilityOf(user, null);
  }

  private async accountabilityOf(user: User, session: string | null): Promise<Accountability> {
    if (!user.isActive) throw userSuspended();
    const role = user.roleId === null ? null : await this.roles.findById(user.roleId);
    return { user: user.id, role: role?.id ?? null, admin: role?.adminAccess ?? false, session };
  }
}
