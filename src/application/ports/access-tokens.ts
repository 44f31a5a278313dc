/** A login session's access token: it acts as its user. */
export type SessionClaims = {
  /** User id. */
  sub: string;
  role: string | null;
  /** Login session id (the refresh-token family). */
  sid: string;
};

/**
 * An admin's preview of a role (docs/api.md §6, "Previewing a role"): it reads as the role would, acts as no
 * user, and lives only while its issuer stays an active admin. It has no `sub`, so nothing that takes it for
 * a session's token (an older server among the instances, say) can act as the issuer with it.
 */
export type PreviewClaims = {
  preview: {
    /** The role previewed; null = the public role. */
    role: string | null;
    /** The admin who asked for it. */
    issuer: string;
    /** The issuer's login session, when they asked with an access token: the preview ends with it. */
    session: string | null;
  };
};

export type AccessTokenClaims = SessionClaims | PreviewClaims;

export type IssuedAccessToken = {
  token: string;
  /** When the token stops being accepted; whole seconds, because JWT `exp` is in seconds. */
  expiresAt: Date;
};

export type VerifiedAccessToken = AccessTokenClaims & { expiresAt: Date };

/** Issues and verifies short-lived access tokens (JWT by default, PASETO as an alternative). */
export interface AccessTokens {
  issue(claims: AccessTokenClaims, now: Date): Promise<IssuedAccessToken>;
  /**
   * Resolves the claims of a token this server issued and that is still valid at `now`.
   * Throws `DomainError` TOKEN_EXPIRED for an expired one and INVALID_TOKEN for anything else.
   */
  verify(token: string, now: Date): Promise<VerifiedAccessToken>;
  /** Cheap shape test, so a static token is not sent through signature verification. */
  looksLikeAccessToken(token: string): boolean;
}
