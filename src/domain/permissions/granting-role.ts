import type { Accountability } from '../accountability.ts';

/**
 * The role whose permissions apply to the caller; null = the public permissions.
 *
 * Public permissions apply to anonymous callers and to users without a role (docs/api.md §6): they are
 * open to anyone who sends no token, so granting them to a logged-in user without a role reveals nothing
 * that user could not read anonymously, and refusing them would only make logging in lose rights.
 * A user with a role gets that role's permissions alone, never the public ones added (as in Directus).
 */
export function grantingRole(caller: Accountability): string | null {
  return caller.role;
}
