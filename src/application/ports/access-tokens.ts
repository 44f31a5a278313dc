export type AccessTokenClaims = {
  /** User id. */
  sub: string;
  role: string | null;
  /** Login session id (the refresh-token family). */
  sid: string;
};

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
