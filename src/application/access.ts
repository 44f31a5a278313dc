import type { Accountability } from '../domain/accountability.ts';
import { forbidden, unauthenticated } from '../domain/errors.ts';

/** Administration is for admin roles: anonymous callers are asked to log in, others are refused. */
export function requireAdmin(caller: Accountability): void {
  if (caller.admin) return;
  throw caller.user === null ? unauthenticated() : forbidden();
}

export function requireUser(caller: Accountability): string {
  if (caller.user === null) throw unauthenticated();
  return caller.user;
}
