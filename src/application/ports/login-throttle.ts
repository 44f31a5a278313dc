/** Who is trying: the e-mail as typed (lower-cased) and the client's address. */
export type LoginAttempt = { readonly email: string; readonly clientAddress: string };

/**
 * Budgets of failed logins, per e-mail and address and per address alone. An attempt is counted
 * before the password is checked, so a burst of parallel guesses cannot all slip through the check.
 */
export interface LoginThrottle {
  /**
   * Counts the attempt per address, then per e-mail and address; milliseconds to wait when a budget is
   * spent (refuse it), else 0.
   */
  admit(attempt: LoginAttempt): Promise<number>;
  /** The attempt was no failure: forget the e-mail+address count and give the address its point back. */
  succeeded(attempt: LoginAttempt): Promise<void>;
}
