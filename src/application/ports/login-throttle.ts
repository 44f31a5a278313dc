/** Who is trying: the e-mail as typed (lower-cased) and the client's address. */
export type LoginAttempt = { readonly email: string; readonly clientAddress: string };

/**
 * Budgets of failed logins, per e-mail and address and per address alone. An attempt is counted
 * before the password is checked, so a burst of parallel guesses cannot all slip through the check.
 * An e-mail that logged in successfully from an address recently is counted there by its own
 * e-mail+address budget only, so failures flooding a shared address cannot lock out its known users.
 */
export interface LoginThrottle {
  /**
   * Counts the attempt per address (unless its e-mail logged in from there recently), then per e-mail and
   * address; milliseconds to wait when a budget is spent (refuse it), else 0. Whether the e-mail belongs
   * to a user plays no part.
   */
  admit(attempt: LoginAttempt): Promise<number>;
  /**
   * The attempt was no failure (the right password): forget the e-mail+address count, give the address
   * the point the attempt took from it, and remember the login as recent.
   */
  succeeded(attempt: LoginAttempt): Promise<void>;
}
