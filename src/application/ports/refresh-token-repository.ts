import type { RefreshToken } from '../../domain/refresh-token.ts';

export interface RefreshTokenRepository {
  add(token: RefreshToken): Promise<void>;
  findByDigest(digest: string): Promise<RefreshToken | null>;
  /**
   * Marks the token spent, only if it was not spent yet.
   * Returns false when another request spent it first (the caller then treats it as a concurrent use).
   */
  markRotated(id: string, at: Date): Promise<boolean>;
  /** Revokes every token of one login session (logout, reuse detection). */
  revokeSession(sessionId: string, at: Date): Promise<void>;
  /** Revokes every token of a user (suspension, password change). */
  revokeUser(userId: string, at: Date): Promise<void>;
  /** Whether the session still has a token that is neither revoked nor expired. */
  isSessionActive(sessionId: string, now: Date): Promise<boolean>;
  /** Housekeeping: forgets tokens that expired before `before`. Returns how many were removed. */
  deleteExpired(before: Date): Promise<number>;
}
