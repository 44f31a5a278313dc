import { type Accountability, PUBLIC_ACCOUNTABILITY } from '../../domain/accountability.ts';
import { DomainError, invalidToken, userSuspended } from '../../domain/errors.ts';
import type { User } from '../../domain/user.ts';
import type { Handler } from '../handler.ts';
import type { AccessTokens, PreviewClaims } from '../ports/access-tokens.ts';
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
    return this.fromStaticToken(query.token, now);
  }

  private async fromAccessToken(token: string, now: Date): Promise<Accountability> {
    const claims = await this.accessTokens.verify(token, now);
    if ('preview' in claims) return this.fromPreview(claims.preview, now);
    const user = await this.users.findById(claims.sub);
    if (!user) throw invalidToken();
    return this.accountabilityOf(user, claims.sid, now);
  }

  /**
   * An admin's preview of a role (docs/api.md §6): that role's rights and no user. It is worth no more than
   * its issuer's rights now: once they are no active admin (or their session ended, where sessions are
   * checked), or once the role is gone, the token is refused as any dead token is.
   */
  private async fromPreview(preview: PreviewClaims['preview'], now: Date): Promise<Accountability> {
    const issuer = await this.users.findById(preview.issuer);
    if (!issuer?.isActive || issuer.roleId === null) throw invalidToken();
    if (!(await this.roles.findById(issuer.roleId))?.adminAccess) throw invalidToken();
    if (
      this.settings.checkSessionOnEachRequest &&
      preview.session !== null &&
      !(await this.refreshTokens.isSessionActive(preview.session, now))
    ) {
      throw invalidToken();
    }
    const marker = { issuer: issuer.id };
    if (preview.role === null) return { ...PUBLIC_ACCOUNTABILITY, preview: marker };
    const role = await this.roles.findById(preview.role);
    if (!role) throw invalidToken();
    return { user: null, role: role.id, admin: role.adminAccess, session: null, preview: marker };
  }

  private async fromStaticToken(token: string, now: Date): Promise<Accountability> {
    const user = await this.users.findByTokenDigest(digestSecret(token));
    if (!user) throw invalidToken();
    return this.accountabilityOf(user, null, now);
  }

  /** `session`: the access token's login session, null for a static token, which has none. */
  private async accountabilityOf(user: User, session: string | null, now: Date): Promise<Accountability> {
    // Suspension before the session: suspending ends the sessions too, and USER_SUSPENDED is what the
    // client can tell its user, whether or not sessions are checked.
    if (!user.isActive) throw userSuspended();
    if (
      session !== null &&
      this.settings.checkSessionOnEachRequest &&
      !(await this.refreshTokens.isSessionActive(session, now))
    ) {
      throw invalidToken();
    }
    const role = user.roleId === null ? null : await this.roles.findById(user.roleId);
    return { user: user.id, role: role?.id ?? null, admin: role?.adminAccess ?? false, session };
  }
}
