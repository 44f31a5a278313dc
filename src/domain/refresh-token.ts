/**
 * One refresh token ever issued. Tokens of one login share a `sessionId` (the family):
 * each refresh spends the presented token and issues its successor in the same family.
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

  constructor(props: RefreshTokenProps) {
    this.id = props.id;
    this.sessionId = props.sessionId;
    this.userId = props.userId;
    this.tokenDigest = props.tokenDigest;
    this.createdAt = props.createdAt;
    this.expiresAt = props.expiresAt;
    this.rotatedAt = props.rotatedAt;
    this.revokedAt = props.revokedAt;
  }
}
