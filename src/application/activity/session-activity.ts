import type { RequestOrigin } from '../../domain/accountability.ts';
import type { ActivityLog } from '../ports/activity-log.ts';

/**
 * Records a login, a logout or a failed refresh of a known session (docs/api.md §14) against the user's
 * record, with where it came from and nothing else: no e-mail, password or token. After the session
 * change, not within it (the session stores are their own transactions); an entry that cannot be written
 * does not fail the sign-in.
 */
export async function recordSessionActivity(
  log: ActivityLog | undefined,
  action: 'login' | 'logout' | 'refresh_failed',
  user: string,
  origin: RequestOrigin | undefined,
): Promise<void> {
  await log
    ?.record([
      {
        action,
        user,
        ip: origin?.ip ?? null,
        userAgent: origin?.userAgent ?? null,
        origin: origin?.origin ?? null,
        collection: 'datagate_users',
        item: user,
      },
    ])
    .catch(() => {});
}
