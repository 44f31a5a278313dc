import { type Accountability, isAnonymous } from '../domain/accountability.ts';
import { forbidden, previewRefused, unauthenticated } from '../domain/errors.ts';

/** Administration is for admin roles: anonymous callers are asked to log in, others are refused. */
export function requireAdmin(caller: Accountability): void {
  if (caller.admin) return;
  throw isAnonymous(caller) ? unauthenticated() : forbidden();
}

/** The caller's own user; a role preview has none (docs/api.md §6). */
export function requireUser(caller: Accountability): string {
  if (caller.user !== null) return caller.user;
  throw caller.preview ? previewRefused() : unauthenticated();
}
