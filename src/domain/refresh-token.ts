/**
 * One refresh token ever issued. Tokens of one login share a `sessionId` (the family):
 * each refresh spends the presented token and issues its one successor in the same family.
 */
export type RefreshTokenProps = {
  id: string;
  sessionId: string;
  userId: string;
  /** SHA-256 digest of the opaque token; the token itself is only ever in the client's hands. */
  tokenDigest: string;
  createdAt: Date;
  expiresAt: Date;
  rotatedAt: Date | null;
  revokedAt: Date | null;
  /**
   * Set together with `rotatedAt`: the token pair this token was spent for, encrypted under a key only a
   * holder of this token can derive, so that a replay within the grace period answers that same pair.
   */
  sealedSuccessor: string | null;
};

export class RefreshToken {
  id: string;
  sessionId: string;
  userId: string;
  tokenDigest: string;
  createdAt: Date;
  expiresAt: Date;
  rotatedAt: Date | null;
  revokedAt: Date | null;
  sealedSuccessor: string | null;

  constructor(props: RefreshTokenProps) {
    this.id = props.id;
    this.sessionId = props.sessionId;
    this.userId = props.userId;
    this.tokenDigest = props.tokenDigest;
    this.createdAt = props.createdAt;
    this.expiresAt = props.expiresAt;
    this.rotatedAt = props.rotatedAt;
    this.revokedAt = props.revokedAt;
    this.sealedSuccessor = props.sealedSuccessor;
  }
}
