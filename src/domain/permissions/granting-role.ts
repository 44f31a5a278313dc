import type { Accountability } from '../accountability.ts';

/**
 * The role whose permissions apply to the caller; null = the public permissions.
 *
 * docs/api.md §4a says public permissions apply to anonymous callers only, §6 that a user without a role gets
 * the public permissions. We follow §6 and read §4a as "callers without a role": the public permissions
 * are open to anyone who sends no token, so granting them to a logged-in user without a role reveals
 * nothing that user could not read anonymously, and refusing them would only make logging in lose rights.
 * A user with a role gets that role's permissions alone, never the public ones added (as in Directus).
 */
export function grantingRole(caller: Accountability): string | null {
  return caller.role;
}
