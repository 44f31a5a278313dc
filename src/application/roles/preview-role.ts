import type { Accountability } from '../../domain/accountability.ts';
import { notFound } from '../../domain/errors.ts';
import { requireAdmin, requireUser } from '../access.ts';
import { systemActivity } from '../activity/system-activity.ts';
import type { AccessTokenGrant } from '../auth/token-pair.ts';
import type { Handler } from '../handler.ts';
import type { AccessTokens } from '../ports/access-tokens.ts';
import type { ActivityLog } from '../ports/activity-log.ts';
import type { Clock } from '../ports/clock.ts';
import type { RoleRepository } from '../ports/role-repository.ts';

/** `role`: the role to preview, or null for the public role (what anonymous callers get). */
export type PreviewRoleCommand = { role: string | null };

/** What the activity entry's `item` names for a preview of the public role, which has no id. */
const PUBLIC_ROLE_ITEM = 'public';

/**
 * POST /roles/:id/preview (docs/api.md §6, "Previewing a role"; docs/decisions/0044): an access token that
 * reads as the role's users do, for an admin who wants to see what they see. Nothing is stored but the
 * activity entry: the token lives as long as an ordinary access token, has no refresh token, and the
 * caller it resolves to is checked against its issuer's rights on every use (ResolveAccountabilityHandler).
 */
export class PreviewRoleHandler implements Handler<PreviewRoleCommand, AccessTokenGrant> {
  constructor(
    private readonly roles: RoleRepository,
    private readonly accessTokens: AccessTokens,
    private readonly activity: ActivityLog,
    private readonly clock: Clock,
  ) {}

  async execute(caller: Accountability, { role }: PreviewRoleCommand): Promise<AccessTokenGrant> {
    requireAdmin(caller);
    // The issuer is a user whose rights the preview keeps depending on: not the command line, not a preview.
    const issuer = requireUser(caller);
    if (role !== null && !(await this.roles.findById(role))) throw notFound('Role');
    const preview = { role, issuer, session: caller.session };
    const { token, expiresAt } = await this.accessTokens.issue({ preview }, this.clock.now());
    // Before the token is handed out, and failing with it: no preview goes unrecorded.
    await this.activity.record([
      systemActivity(caller, 'preview', 'datagate_roles', role ?? PUBLIC_ROLE_ITEM),
    ]);
    return { accessToken: token, expires: expiresAt.getTime() };
  }
}
