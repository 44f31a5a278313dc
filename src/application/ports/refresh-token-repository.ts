import type { RefreshToken } from '../../domain/refresh-token.ts';

export interface RefreshTokenRepository {
  add(token: RefreshToken): Promise<void>;
  /**
   * Adds the first token of a login session, only while its user is active and still has `passwordHash`,
   * the one the login verified: a suspension or a new password committed since then ended every session
   * of the user, and must end this one too. Atomic with such a change, across processes. Returns false,
   * adding nothing, when the user is gone, suspended or has another password.
   */
  addFirstOfSession(token: RefreshToken, passwordHash: string): Promise<boolean>;
  findByDigest(digest: string): Promise<RefreshToken | null>;
  /**
   * Spends token `spentId` and adds its one successor, all or nothing, and only while `spentId` is neither
   * spent nor revoked: its `rotatedAt` becomes `at` and its `sealedSuccessor` is kept with it. Atomic
   * across processes: of concurrent calls for one token exactly one succeeds. Returns false, changing
   * nothing, when another request spent the token first (the caller then answers that request's
   * successor) or it was revoked meanwhile.
   */
  rotate(spentId: string, successor: RefreshToken, sealedSuccessor: string, at: Date): Promise<boolean>;
  /** Revokes every token of one login session (logout, reuse detection). */
  revokeSession(sessionId: string, at: Date): Promise<void>;
  /** Revokes every token of a user (suspension, password change). */
  revokeUser(userId: string, at: Date): Promise<void>;
  /** Whether the session still has a token that is neither revoked nor expired. */
  isSessionActive(sessionId: string, now: Date): Promise<boolean>;
  /** Housekeeping: forgets tokens that expired before `before`. Returns how many were removed. */
  deleteExpired(before: Date): Promise<number>;
}
