import type { RefreshToken } from './refresh-token.ts';

export type RefreshDecision =
  /** First use: spend the token and issue its successor. */
  | { kind: 'rotate' }
  /**
   * Already spent, but within the grace period: a second tab or a retried request raced the first.
   * Issue another successor in the same family rather than logging the user out.
   */
  | { kind: 'rotate-within-grace' }
  /** Spent long ago and presented again: someone kept a copy. Revoke the whole family. */
  | { kind: 'reuse-detected' }
  | { kind: 'revoked' }
  | { kind: 'expired' };

/**
 * Decides what presenting a refresh token means, à la Supabase Auth: rotation on every use,
 * a short grace period for concurrent use, and family revocation when a spent token comes back.
 * Revocation wins over expiry so that a stolen, revoked token never reports more than "invalid".
 */
export function decideRefresh(token: RefreshToken, now: Date, reuseGraceMs: number): RefreshDecision {
  if (token.revokedAt !== null) return { kind: 'revoked' };
  if (token.rotatedAt !== null) {
    const sinceRotation = now.getTime() - token.rotatedAt.getTime();
    return sinceRotation <= reuseGraceMs ? { kind: 'rotate-within-grace' } : { kind: 'reuse-detected' };
  }
  if (now.getTime() >= token.expiresAt.getTime()) return { kind: 'expired' };
  return { kind: 'rotate' };
}
