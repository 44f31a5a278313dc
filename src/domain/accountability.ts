import type { DatabaseWork } from './database-work.ts';

/**
 * Who is calling, resolved once per request and passed explicitly to every handler.
 * `user: null` is the public (anonymous) caller, whose rights are the public permissions, or an admin's
 * preview of a role (`preview`), whose rights are that role's.
 */
export type Accountability = {
  readonly user: string | null;
  readonly role: string | null;
  readonly admin: boolean;
  /** The login session an access token belongs to; null for static tokens and the public caller. */
  readonly session: string | null;
  /** Where the request came from, as activity records it (docs/api.md §14); absent outside HTTP. */
  readonly origin?: RequestOrigin;
  /**
   * Set when the caller is an admin's preview of `role` (docs/api.md §6, "Previewing a role"): it reads
   * as that role's users do, with no user of its own, and may change nothing.
   */
  readonly preview?: { readonly issuer: string };
  /** The request's database work, which handlers hand to the stores; absent outside HTTP. */
  readonly work?: DatabaseWork;
};

/**
 * The caller has neither a user nor a role: what it is refused, it is asked to log in for (401) rather
 * than told it may not have (403). A preview of the public role counts, as it shows what such a caller sees.
 */
export function isAnonymous(caller: Accountability): boolean {
  return caller.user === null && caller.role === null;
}

/** The client's address, user agent and `Origin` header, as far as the HTTP adapter knows them. */
export type RequestOrigin = {
  readonly ip: string | null;
  readonly userAgent: string | null;
  readonly origin: string | null;
};

export const PUBLIC_ACCOUNTABILITY: Accountability = Object.freeze({
  user: null,
  role: null,
  admin: false,
  session: null,
});

/** The operator at the command line: full rights, but no user to attribute writes to. */
export const SYSTEM_ACCOUNTABILITY: Accountability = Object.freeze({
  user: null,
  role: null,
  admin: true,
  session: null,
});
