/**
 * The e-mail+address pairs (as keys) that logged in successfully within `auth.throttle.rememberLogin`:
 * the address budget no longer counts them.
 */
export interface RecentLogins {
  has(key: string): Promise<boolean>;
  /** Remembers the key for the whole window again, from now. */
  remember(key: string): Promise<void>;
}
