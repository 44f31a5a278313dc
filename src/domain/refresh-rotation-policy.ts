import type { RefreshToken } from './refresh-token.ts';

export type RefreshDecision =
  /** First use: spend the token and issue its one successor. */
  | { kind: 'rotate' }
  /**
   * Already spent, but within the grace period: a second tab or a retried request raced the first.
   * Answer the successor the first use got rather than logging the user out; never a second one, which
   * would branch the session (a thief racing the owner would keep a branch of their own).
   */
  | { kind: 'replay-successor' }
  /** Spent long ago and presented again: someone kept a copy. Revoke the whole family. */
  | { kind: 'reuse-detected' }
  | { kind: 'revoked' }
  | { kind: 'expired' };

/**
 * Decides what presenting a refresh token means, à la Supabase Auth: rotation on every use, a short
 * grace period in which a repeated use gets the same successor, and family revocation when a spent token
 * comes back later.
 * Revocation wins over expiry so that a stolen, revoked token never reports more than "invalid".
 */
export function decideRefresh(token: RefreshToken, now: Date, reuseGraceMs: number): RefreshDecision {
  if (token.revokedAt !== null) return { kind: 'revoked' };
  if (token.rotatedAt !== null) {
    const sinceRotation = now.getTime() - token.rotatedAt.getTime();
    return sinceRotation <= reuseGraceMs ? { kind: 'replay-successor' } : { kind: 'reuse-detected' };
  }
  if (now.getTime() >= token.expiresAt.getTime()) return { kind: 'expired' };
  return { kind: 'rotate' };
}
