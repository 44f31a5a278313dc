export type AuthSettings = {
  accessTokenTtlMs: number;
  refreshTokenTtlMs: number;
  refreshReuseGraceMs: number;
  /** When on, an access token stops working as soon as its login session is revoked. */
  checkSessionOnEachRequest: boolean;
};
